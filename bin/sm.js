#!/usr/bin/env node
// The `sm` executable: runs the TypeScript CLI through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../server/cli/main.ts');
