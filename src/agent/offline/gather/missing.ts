/**
 * An object the gathering looked for and the cluster does not have: told from the tool's
 * own not-found answer (any other failure is no proof it is missing).
 */
import type { Missing } from '../case.ts';
import type { Query } from '../query.ts';

/** `{ missing }` when the call that should have read the object answered that it does not exist. */
export function missingField(object: Missing, result: ReturnType<Query['get']>): { missing?: Missing } {
  const missing = missingObject(object, result);
  return missing ? { missing } : {};
}

/** The object as named, when the call that should have read it answered that it does not exist; undefined for any other failure. */
export function missingObject(object: Missing, result: ReturnType<Query['get']>): Missing | undefined {
  if (!result || result.ok || result.error !== 'not-found') return undefined;
  return { ...object, toolMessage: result.content };
}
