/** A capture that cannot go on for a reason a person can fix: `kubewhy capture` prints the message and exits 2. */
export class CaptureError extends Error {
  override name = 'CaptureError';
}
