// The users of a file (admin only): the list, and forgetting one whole. Thin: the core's as they are.
export { forgetUser, listUsers } from '../core/users/users.ts';
