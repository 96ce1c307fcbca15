/**
 * The console's static assets, embedded as strings so they ship inside `dist/` with the
 * code (the build compiles TypeScript only) and are read once, at start.
 */
import { createHash } from 'node:crypto';
import { CONSOLE_JS } from './assets/script.ts';
import { CONSOLE_CSS } from './assets/stylesheet.ts';

export interface Asset {
  contentType: string;
  body: string;
  /** A strong ETag of the body. */
  etag: string;
}

function asset(contentType: string, body: string): Asset {
  return { contentType, body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"` };
}

/** By file name, as served under `/console/assets/`. */
export const CONSOLE_ASSETS: ReadonlyMap<string, Asset> = new Map([
  ['console.css', asset('text/css; charset=utf-8', CONSOLE_CSS)],
  ['console.js', asset('text/javascript; charset=utf-8', CONSOLE_JS)],
]);
