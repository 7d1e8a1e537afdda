// Who may read or write which space: the admin, a token's access, and the space a request names
// checked against it (docs/spaces-and-tokens.md). The adapters resolve access here, once per request.
export { type Access, accessForToken, ADMIN, liveTokenIds, spaceFor } from '../core/users/tokens.ts';
// Whether a row is in a space. Here, not in kernel.ts: space.ts loads zod, which every CLI command
// would then load at start-up (kernel.ts is on that path).
export { visibleIn } from '../core/kernel/space.ts';
// Token administration (admin only): create, list, revoke.
export { createToken, listTokens, requireAdminAccess, revokeToken } from '../core/users/tokens.ts';
