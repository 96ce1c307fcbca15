/**
 * The Kubernetes API refusing an in-cluster client, with what binds the account: the
 * refusal a failing line carries (trace/access-refusal.ts) is checked with
 * list_role_bindings (like `kubectl auth can-i --as`), and a binding in the refused
 * namespace that names an account of the same name elsewhere (the near miss: a subject
 * written with the wrong namespace, or its name misspelt) is named beside it.
 */
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';
import { describeRefusal, readAccessRefusal } from '../trace/access-refusal.ts';

export function refusalEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  if (finding.category !== 'bad-credentials') return [];
  const lines = [
    ...finding.evidence.filter((line) => line.startsWith('log: ')).map((line) => line.slice(5)),
    ...(gathered.logs?.errorLines ?? []).slice(-20),
  ];
  const refusal = lines.map(readAccessRefusal).find((found) => found !== undefined);
  const account = refusal?.serviceAccount;
  if (!refusal || !account) return [];
  const check = {
    verb: refusal.verb,
    resource: refusal.resource,
    ...(refusal.apiGroup ? { apiGroup: refusal.apiGroup } : {}),
    ...(refusal.namespace ? { namespace: refusal.namespace } : {}),
  };
  const bound = query.data('list_role_bindings', { serviceAccount: account, check });
  query.barrier();
  const evidence = [describeRefusal(refusal)];
  if (bound) {
    const names = bound.bindings.map(
      (binding) =>
        `${binding.kind} ${binding.namespace ? `${binding.namespace}/` : ''}${binding.name} -> ${binding.role.kind} ${binding.role.name}`,
    );
    const verdict = bound.access?.allowed
      ? `RBAC allows it by ${bound.access.allowedBy?.binding}: the refusal is not a missing grant`
      : 'no binding grants it';
    evidence.push(
      `bindings of service account ${account.namespace}/${account.name}: ${names.join('; ') || 'none'}; ${verdict}`,
    );
  }
  const own = `ServiceAccount ${account.namespace}/${account.name}`;
  // Bindings (in the refused namespace, or cluster-wide) that name an account of the same name elsewhere: the subject names the wrong namespace.
  for (const binding of bound?.sameNameElsewhere ?? []) {
    const namesAnother = binding.subjects
      .split(', ')
      .find(
        (subject) => subject.startsWith('ServiceAccount ') && subject.endsWith(`/${account.name}`) && subject !== own,
      );
    const where =
      binding.kind === 'RoleBinding'
        ? `RoleBinding ${binding.namespace}/${binding.name} in namespace ${binding.namespace}`
        : `ClusterRoleBinding ${binding.name} (${binding.role.kind} ${binding.role.name})`;
    if (namesAnother)
      evidence.push(`${where} binds ${namesAnother}, not ${own}: its subject names the wrong namespace`);
  }
  // Bindings whose subject is the account's name misspelt, an account that does not exist.
  for (const binding of bound?.similarName ?? []) {
    const where =
      binding.kind === 'RoleBinding'
        ? `RoleBinding ${binding.namespace}/${binding.name}`
        : `ClusterRoleBinding ${binding.name}`;
    evidence.push(
      `${where} (${binding.role.kind} ${binding.role.name}) binds ${binding.subject}, which does not exist, not ${own}: its subject's name is misspelt`,
    );
  }
  return evidence;
}
