/**
 * Kubernetes names in tool inputs, checked as the API server checks them (RFC 1123), so a
 * name that no object can have (`../kube-system`, `Kube-System`, `a/b`) is refused by the
 * gate as invalid input before any call, with a message that says what a valid name looks like.
 *
 * - namespace and container names: an RFC 1123 label, at most 63 characters;
 * - object names (pods, workloads, services, nodes...): an RFC 1123 subdomain, at most 253.
 */
import { z } from 'zod';

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const LABEL_PATTERN = new RegExp(`^${LABEL}$`);
const SUBDOMAIN_PATTERN = new RegExp(`^${LABEL}(\\.${LABEL})*$`);

export const MAX_LABEL_LENGTH = 63;
export const MAX_SUBDOMAIN_LENGTH = 253;

const LABEL_RULE = 'lowercase letters, digits and "-", starting and ending with a letter or digit';

function label(what: string): z.ZodString {
  return z
    .string()
    .min(1, { error: `a ${what} cannot be empty`, abort: true })
    .max(MAX_LABEL_LENGTH, { error: `a ${what} has at most ${MAX_LABEL_LENGTH} characters`, abort: true })
    .regex(LABEL_PATTERN, {
      error: (issue) =>
        `${JSON.stringify(issue.input)} is not a valid ${what}: use ${LABEL_RULE} (e.g. "shop", "checkout-api")`,
    });
}

/** A namespace: an RFC 1123 label. Call `.describe()` on it as on any field. */
export function namespaceName(): z.ZodString {
  return label('namespace name');
}

/** A container name: an RFC 1123 label. */
export function containerName(): z.ZodString {
  return label('container name');
}

/** An object name (pod, workload, service, node...): an RFC 1123 subdomain. */
export function objectName(): z.ZodString {
  return z
    .string()
    .min(1, { error: 'an object name cannot be empty', abort: true })
    .max(MAX_SUBDOMAIN_LENGTH, { error: `an object name has at most ${MAX_SUBDOMAIN_LENGTH} characters`, abort: true })
    .regex(SUBDOMAIN_PATTERN, {
      error: (issue) =>
        `${JSON.stringify(issue.input)} is not a valid object name: use ${LABEL_RULE}, in parts joined by "." (e.g. "checkout-api-7d9f8c6b5-x2k4q")`,
    });
}
