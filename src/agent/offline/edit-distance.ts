/**
 * Names typed one letter off: what a hurried report does to "settlement-api".
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
