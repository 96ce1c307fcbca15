/**
 * Names as a hurried report types them: one letter off ("settlment-api"), or each word of
 * the name cut to its first letters ("orig-api" for origination-api, "pay-gate" for
 * payment-gateway).
 */

/** Whether two names differ by one inserted, deleted or changed letter (or two neighbours swapped). */
export function withinOneEdit(left: string, right: string): boolean {
  if (left === right) return false;
  if (Math.abs(left.length - right.length) > 1) return false;
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i += 1;
  const restLeft = left.slice(i);
  const restRight = right.slice(i);
  if (restLeft.slice(1) === restRight.slice(1) || restLeft.slice(1) === restRight || restLeft === restRight.slice(1))
    return true;
  return (
    restLeft.length >= 2 &&
    restLeft[0] === restRight[1] &&
    restLeft[1] === restRight[0] &&
    restLeft.slice(2) === restRight.slice(2)
  );
}

/**
 * Whether `token` is `name` with its words cut short: as many dash-separated words, each a
 * prefix of the name's word (two letters at least, the first word three), and at least one
 * cut. "orig-api" shortens origination-api; "orig-web" does not, nor does "api" alone.
 */
export function shortensName(token: string, name: string): boolean {
  const typed = token.split('-');
  const words = name.split('-');
  if (typed.length < 2 || typed.length !== words.length || token === name) return false;
  if ((typed[0]?.length ?? 0) < 3) return false;
  return typed.every((part, index) => part.length >= 2 && (words[index] ?? '').startsWith(part));
}

/** Where shortensName holds and where it does not, for its test. */
export const SHORTENED_NAMES = {
  match: [
    ['orig-api', 'origination-api'],
    ['pay-gate', 'payment-gateway'],
    ['notif-serv-worker', 'notification-service-worker'],
  ],
  noMatch: [
    ['orig-web', 'origination-api'],
    ['api', 'origination-api'],
    ['origination-api', 'origination-api'],
    ['or-api', 'orders-api'],
    ['orig-api', 'origination-api-worker'],
    // Letters that are not the word's first ones are an abbreviation of another kind (abbreviations.ts), not a cut.
    ['pay-gw', 'payment-gateway'],
  ],
} as const;
