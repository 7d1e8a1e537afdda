// Who may talk to the server. Loopback needs no token; anywhere else needs SM_API_TOKEN, sent as
// `Authorization: Bearer …` over HTTP and in connection_init over WebSocket. Browsers on other
// sites are refused either way (cross-origin requests and DNS-rebinding Host names). A scoped
// token (created by the admin) reaches one user's space, on loopback and elsewhere alike.
import { accessForToken, ADMIN, type Access } from '../services/tokens.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { Store } from '../core/kernel/store.ts';

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare.startsWith('::ffff:127.');
  return false;
}

/** The shortest admin token accepted: anything shorter can be guessed. */
export const MIN_TOKEN_LENGTH = 16;

/** Throws when the admin token is too weak to protect anything: short, blank, or padded with spaces. */
export function assertStrongToken(token: string | undefined) {
  if (token === undefined) return;
  if (token.trim() !== token || token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new Error(
      `SM_API_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters, without spaces (e.g. \`openssl rand -hex 24\`)`,
    );
  }
}

/** Throws when listening on `host` would expose the API without a token. */
export function assertSafeBinding(host: string, token: string | undefined) {
  if (!isLoopback(host) && !token) {
    throw new Error(`Refusing to listen on ${host} without a token: set SM_API_TOKEN (or listen on 127.0.0.1)`);
  }
}

// Hashing first makes the comparison constant-time whatever the lengths.
const digest = (value: string) => createHash('sha256').update(value).digest();
export const tokenMatches = (given: string | undefined | null, token: string) =>
  typeof given === 'string' && timingSafeEqual(digest(given), digest(token));

export function bearer(authorization: string | null | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '');
  return match?.[1]?.trim();
}

/** The token of a graphql-ws connection_init payload: `{ token }` or `{ authorization: 'Bearer …' }`. */
export function connectionToken(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  if (typeof params.token === 'string') return params.token;
  const header = params.authorization ?? params.Authorization;
  return typeof header === 'string' ? bearer(header) : undefined;
}

const hostnameOf = (hostHeader: string) => {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return null;
  }
};

/**
 * Why a request from a browser context must be refused, or null. A page on another origin may
 * not call the API (CSRF, cross-site WebSocket hijacking), and when the server relies on being
 * loopback-only, a Host name that is not loopback means DNS rebinding.
 */
export function browserRefusal(
  headers: { origin?: string | null; host?: string | null },
  loopbackOnly: boolean,
): string | null {
  const host = headers.host ?? '';
  if (headers.origin && headers.origin !== 'null') {
    let originHost: string | null = null;
    try {
      originHost = new URL(headers.origin).host;
    } catch {
      // An unparsable Origin is refused below.
    }
    if (originHost !== host) return 'cross-origin requests are not allowed';
  } else if (headers.origin === 'null') {
    return 'cross-origin requests are not allowed';
  }
  if (loopbackOnly) {
    const hostname = hostnameOf(host);
    if (!hostname || !isLoopback(hostname)) return 'this server only answers to loopback host names';
  }
  return null;
}

/**
 * What a presented token grants, or null when it must be refused (401): the admin token (or no
 * token at all when none is configured: loopback use) is the admin; a valid scoped token its
 * space; anything else, a revoked token included, nothing.
 */
export async function resolveAccess(
  store: Store,
  adminToken: string | undefined,
  presented: string | undefined,
): Promise<Access | null> {
  if (presented === undefined) return adminToken ? null : ADMIN;
  if (adminToken && tokenMatches(presented, adminToken)) return ADMIN;
  return accessForToken(store, presented);
}

const accessByRequest = new WeakMap<Request, Access>();
/** Set by the access guard for every request it lets through. */
export const rememberAccess = (request: Request, access: Access) => accessByRequest.set(request, access);
/** The access of a request the guard let through (none: a request that bypassed it gets nothing). */
export function accessOf(request: Request): Access {
  const access = accessByRequest.get(request);
  if (!access) throw new Error('request without resolved access');
  return access;
}
