/**
 * `list_role_bindings`: the RoleBindings and ClusterRoleBindings of a namespace, or those that
 * name one service account, each with its role's rules; and, asked about one request, whether
 * RBAC lets the account make it and which binding does (what `kubectl auth can-i --as
 * system:serviceaccount:NS:NAME` answers, decided from the bindings read, RBAC only).
 */
import { z } from 'zod';
import type { V1ClusterRoleBinding, V1PolicyRule, V1RoleBinding } from '@kubernetes/client-node';
import type { ClusterError } from '../cluster/cluster.ts';
import { BudgetedText } from './format/budget.ts';
import { editDistance } from './format/host-names.ts';
import {
  formatRule,
  formatSubjects,
  ruleAllows,
  serviceAccountUser,
  subjectNaming,
  type AccessRequest,
  type ServiceAccountRef,
} from './format/rbac.ts';
import { namespaceName, objectName } from './names.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool, ReadToolContext, ToolFailure } from './tool.ts';

export interface BindingData {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  /** Absent for a ClusterRoleBinding. */
  namespace?: string;
  name: string;
  role: { kind: string; name: string };
  /** How the binding names the asked account (`ServiceAccount shop/checkout`, `Group system:serviceaccounts`). */
  namedAs?: string;
  subjects: string;
  /** The role's rules, one line each; absent when the role could not be read. */
  rules?: string[];
  /** Why the role's rules are unknown: `not-found` (a binding to a role that does not exist grants nothing), `forbidden`. */
  roleError?: string;
}

export interface AccessDecisionData {
  request: AccessRequest & { namespace?: string };
  allowed: boolean;
  /** The binding, role and rule that allow it. */
  allowedBy?: { binding: string; role: string; rule: string };
}

export interface RoleBindingsData {
  serviceAccount?: ServiceAccountRef;
  /** False when the service account was asked for and does not exist. */
  serviceAccountExists?: boolean;
  bindings: BindingData[];
  total: number;
  access?: AccessDecisionData;
  /** With serviceAccount: bindings that name a service account of the same name in another namespace (a subject written with the wrong namespace), without their rules. */
  sameNameElsewhere?: BindingData[];
  /** With serviceAccount: bindings that name a service account of its namespace whose name is one or two letters off (a misspelt subject), without their rules. */
  similarName?: Array<BindingData & { subject: string }>;
}

const BINDING_LIMIT = 40;

/** Near-miss bindings shown at most. */
const NEAR_MISS_LIMIT = 5;

const input = z.object({
  namespace: namespaceName()
    .optional()
    .describe(
      'Namespace whose RoleBindings to read (ClusterRoleBindings are cluster-wide). Without serviceAccount: every binding in it',
    ),
  serviceAccount: z
    .object({
      namespace: namespaceName().describe('Namespace of the service account'),
      name: objectName().describe('Service account name, e.g. "checkout" from `system:serviceaccount:shop:checkout`'),
    })
    .optional()
    .describe(
      'Only the bindings that name this service account (directly, or through the system:serviceaccounts groups)',
    ),
  check: z
    .object({
      verb: z.string().min(1).max(40).describe('The verb, e.g. "get", "list", "watch", "create", "patch"'),
      resource: z
        .string()
        .min(1)
        .max(100)
        .describe('The resource as a 403 names it, e.g. "pods", "secrets", "configmaps", "pods/log", "leases"'),
      apiGroup: z
        .string()
        .max(100)
        .optional()
        .describe('The API group, "" (default) for the core group, e.g. "apps", "coordination.k8s.io"'),
      namespace: namespaceName().optional().describe('Namespace of the request; omitted for a cluster-scoped request'),
      name: objectName().optional().describe('The object name, when a rule limits resourceNames'),
    })
    .optional()
    .describe(
      'With serviceAccount: decide whether RBAC allows this request, and by which binding (like kubectl auth can-i --as)',
    ),
});

type Input = z.infer<typeof input>;

interface Listed {
  kind: BindingData['kind'];
  binding: V1RoleBinding | V1ClusterRoleBinding;
}

function forbiddenHint(what: string): string {
  return `kubewhy cannot read ${what} here (its RBAC lacks it); say so and reason from the 403 message itself: it names the account, verb, resource and namespace.`;
}

function failure(error: ClusterError, what: string): ToolFailure {
  return failureFrom(error, error.kind === 'forbidden' ? forbiddenHint(what) : undefined);
}

/** The namespaces whose RoleBindings matter to the question. */
function bindingNamespaces(args: Input): string[] {
  return [
    ...new Set(
      [args.namespace, args.check?.namespace, args.serviceAccount?.namespace].filter(
        (namespace): namespace is string => namespace !== undefined,
      ),
    ),
  ];
}

async function readRules(
  context: ReadToolContext,
  binding: Listed['binding'],
): Promise<{ rules?: V1PolicyRule[]; error?: string }> {
  const { kind, name } = binding.roleRef;
  const fetched =
    kind === 'Role'
      ? await context.cluster.get(
          'Role',
          { namespace: binding.metadata?.namespace ?? 'default', name },
          { signal: context.signal },
        )
      : await context.cluster.get('ClusterRole', { name }, { signal: context.signal });
  if (!fetched.ok)
    return {
      error:
        fetched.error.kind === 'not-found'
          ? `${kind} "${name}" does not exist: the binding grants nothing`
          : `${fetched.error.kind}: ${fetched.error.message}`,
    };
  return { rules: fetched.value.rules ?? [] };
}

/** A binding as the tool shows it, without its role's rules. */
function bindingSummary(kind: Listed['kind'], binding: Listed['binding']): BindingData {
  return {
    kind,
    ...(kind === 'RoleBinding' && binding.metadata?.namespace ? { namespace: binding.metadata.namespace } : {}),
    name: binding.metadata?.name ?? '',
    role: { kind: binding.roleRef.kind, name: binding.roleRef.name },
    subjects: formatSubjects(binding.subjects, binding.metadata?.namespace),
  };
}

/** A subject name one or two letters off the account's: a typo, not another account (short names are too easily near). */
function isMisspelling(subject: string, account: string): boolean {
  return subject !== account && Math.min(subject.length, account.length) >= 5 && editDistance(subject, account) <= 2;
}

function bindingLabel(binding: BindingData): string {
  return binding.kind === 'RoleBinding'
    ? `RoleBinding ${binding.namespace ?? '?'}/${binding.name}`
    : `ClusterRoleBinding ${binding.name}`;
}

export const listRoleBindingsTool: ReadTool<typeof input, RoleBindingsData, 'list_role_bindings'> = {
  name: 'list_role_bindings',
  description:
    "Lists RBAC bindings with their roles' rules (verbs, resources, API groups, resourceNames): the RoleBindings of a namespace and the ClusterRoleBindings, " +
    'or only those naming one service account. With serviceAccount and check {verb, resource, namespace}, says whether RBAC allows that request and which binding ' +
    'grants it (like `kubectl auth can-i --as system:serviceaccount:NS:NAME`). Use it when a log or event says `forbidden: User "system:serviceaccount:NS:NAME" cannot VERB RESOURCE`: ' +
    'it shows what the account is bound to and what is missing.',
  input,
  risk: 'read',
  async run(args, context) {
    if (!args.namespace && !args.serviceAccount)
      return {
        ok: false,
        error: 'invalid-input',
        content:
          'invalid-input: give namespace (every binding in it) or serviceAccount {namespace, name} (the bindings naming it).',
      };
    const account = args.serviceAccount;
    const namespaces = bindingNamespaces(args);
    const [accountRead, clusterBindings, ...namespaceBindings] = await Promise.all([
      account
        ? context.cluster.get(
            'ServiceAccount',
            { namespace: account.namespace, name: account.name },
            { signal: context.signal },
          )
        : Promise.resolve(undefined),
      context.cluster.list('ClusterRoleBinding', { maxItems: 5000, signal: context.signal }),
      ...namespaces.map((namespace) =>
        context.cluster.list('RoleBinding', { namespace, maxItems: 2000, signal: context.signal }),
      ),
    ]);
    if (!clusterBindings.ok) return failure(clusterBindings.error, 'ClusterRoleBindings');
    // List items carry no kind: where each was read from says it.
    const listed: Listed[] = clusterBindings.value.items.map((binding) => ({ kind: 'ClusterRoleBinding', binding }));
    for (const [index, result] of namespaceBindings.entries()) {
      if (!result.ok) return failure(result.error, `RoleBindings in "${namespaces[index] ?? ''}"`);
      listed.push(...result.value.items.map((binding): Listed => ({ kind: 'RoleBinding', binding })));
    }
    const accountExists =
      accountRead === undefined
        ? undefined
        : accountRead.ok
          ? true
          : accountRead.error.kind === 'not-found'
            ? false
            : undefined;
    if (account && accountExists === false) {
      const others = await context.cluster.list('ServiceAccount', {
        namespace: account.namespace,
        maxItems: 200,
        signal: context.signal,
      });
      const names = others.ok ? others.value.items.map((item) => item.metadata?.name ?? '').filter(Boolean) : [];
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: service account "${account.name}" does not exist in namespace "${account.namespace}"${names.length ? `; it has: ${names.slice(0, 30).join(', ')}` : others.ok ? '; it has none (or the namespace does not exist)' : ''}. A pod naming a missing service account is not created.`,
      };
    }

    const relevant = listed
      .map((entry) => ({
        ...entry,
        namedAs: account
          ? subjectNaming(entry.binding.subjects, entry.binding.metadata?.namespace, account)
          : undefined,
      }))
      // Without an account: every binding of the namespace; ClusterRoleBindings only when they name one of its service accounts.
      .filter(({ kind, binding, namedAs }) =>
        account
          ? namedAs !== undefined
          : (kind === 'RoleBinding' && binding.metadata?.namespace === args.namespace) ||
            (binding.subjects ?? []).some(
              (subject) => subject.kind === 'ServiceAccount' && subject.namespace === args.namespace,
            ),
      )
      .sort(
        (left, right) =>
          Number(left.kind === 'ClusterRoleBinding') - Number(right.kind === 'ClusterRoleBinding') ||
          (left.binding.metadata?.name ?? '').localeCompare(right.binding.metadata?.name ?? ''),
      );
    const kept = relevant.slice(0, BINDING_LIMIT);
    const withRules = await Promise.all(
      kept.map(async (entry) => ({ ...entry, ...(await readRules(context, entry.binding)) })),
    );
    const bindings: BindingData[] = withRules.map(({ kind, binding, namedAs, rules, error }) => ({
      ...bindingSummary(kind, binding),
      ...(namedAs ? { namedAs } : {}),
      ...(rules ? { rules: rules.map(formatRule) } : {}),
      ...(error ? { roleError: error } : {}),
    }));

    // The near miss: a binding meant for this account whose subject names another namespace.
    const sameNameElsewhere: BindingData[] = account
      ? listed
          .filter(
            ({ binding }) =>
              !subjectNaming(binding.subjects, binding.metadata?.namespace, account) &&
              (binding.subjects ?? []).some(
                (subject) =>
                  subject.kind === 'ServiceAccount' &&
                  subject.name === account.name &&
                  (subject.namespace ?? binding.metadata?.namespace) !== account.namespace,
              ),
          )
          .slice(0, NEAR_MISS_LIMIT)
          .map(({ kind, binding }) => bindingSummary(kind, binding))
      : [];

    // The other near miss: a subject in the account's namespace spelt a letter or two differently ("pipline-runner").
    const candidates = account
      ? listed.flatMap(({ kind, binding }) => {
          const near = (binding.subjects ?? []).find(
            (subject) =>
              subject.kind === 'ServiceAccount' &&
              (subject.namespace ?? binding.metadata?.namespace) === account.namespace &&
              isMisspelling(subject.name, account.name),
          );
          if (!near || subjectNaming(binding.subjects, binding.metadata?.namespace, account)) return [];
          return [{ kind, binding, near: near.name }];
        })
      : [];
    // A near name that is another account of the namespace (api-v1 beside api-v2) is no typo.
    const accounts = candidates.length
      ? await context.cluster.list('ServiceAccount', {
          namespace: account!.namespace,
          maxItems: 500,
          signal: context.signal,
        })
      : undefined;
    const existing = new Set(accounts?.ok ? accounts.value.items.map((item) => item.metadata?.name ?? '') : []);
    const misspelt = candidates.filter(({ near }) => !existing.has(near)).slice(0, NEAR_MISS_LIMIT);
    const similarName = misspelt.map(({ kind, binding, near }) => ({
      ...bindingSummary(kind, binding),
      subject: `ServiceAccount ${account!.namespace}/${near}`,
    }));

    let access: AccessDecisionData | undefined;
    if (account && args.check) {
      const request: AccessDecisionData['request'] = {
        verb: args.check.verb,
        resource: args.check.resource,
        apiGroup: args.check.apiGroup ?? '',
        ...(args.check.name ? { name: args.check.name } : {}),
        ...(args.check.namespace ? { namespace: args.check.namespace } : {}),
      };
      access = { request, allowed: false };
      // ClusterRoleBindings first: they grant everywhere; a RoleBinding only in its own namespace.
      const ordered = [...withRules].sort(
        (left, right) => Number(left.kind === 'RoleBinding') - Number(right.kind === 'RoleBinding'),
      );
      for (const { kind, binding, rules } of ordered) {
        if (kind === 'RoleBinding' && binding.metadata?.namespace !== request.namespace) continue;
        const rule = (rules ?? []).find((candidate) => ruleAllows(candidate, request));
        if (rule) {
          const label =
            kind === 'RoleBinding'
              ? `RoleBinding ${binding.metadata?.namespace ?? ''}/${binding.metadata?.name ?? ''}`
              : `ClusterRoleBinding ${binding.metadata?.name ?? ''}`;
          access = {
            request,
            allowed: true,
            allowedBy: {
              binding: label,
              role: `${binding.roleRef.kind} ${binding.roleRef.name}`,
              rule: formatRule(rule),
            },
          };
          break;
        }
      }
    }

    const data: RoleBindingsData = {
      ...(account ? { serviceAccount: account, serviceAccountExists: accountExists ?? true } : {}),
      bindings,
      total: relevant.length,
      ...(access ? { access } : {}),
      ...(sameNameElsewhere.length ? { sameNameElsewhere } : {}),
      ...(similarName.length ? { similarName } : {}),
    };
    const text = new BudgetedText(context.outputBudgetBytes);
    const subject = account
      ? `naming ${serviceAccountUser(account)} (directly or by its groups)`
      : `in namespace ${args.namespace ?? ''} (and ClusterRoleBindings of its service accounts)`;
    text.add(
      `${relevant.length} binding(s) ${subject}${relevant.length > kept.length ? `; the first ${kept.length} shown` : ''}.`,
    );
    if (access) {
      const asked = `${access.request.verb} ${access.request.resource}${access.request.apiGroup ? ` [${access.request.apiGroup}]` : ''}${access.request.name ? ` "${access.request.name}"` : ''} ${access.request.namespace ? `in namespace ${access.request.namespace}` : 'at cluster scope'}`;
      text.add(
        access.allowedBy
          ? `can-i ${asked}: yes, by ${access.allowedBy.binding} (${access.allowedBy.role}: ${access.allowedBy.rule})`
          : `can-i ${asked}: no, no binding below grants it (RBAC only; a 403 for it is this missing grant).`,
      );
    }
    for (const binding of bindings) {
      const header = `${bindingLabel(binding)} -> ${binding.role.kind} ${binding.role.name}${binding.namedAs && binding.namedAs.startsWith('Group') ? ` (via ${binding.namedAs})` : ''}; subjects ${binding.subjects}`;
      const rules = binding.roleError
        ? [`  rules unknown: ${binding.roleError}`]
        : (binding.rules ?? []).slice(0, 20).map((rule) => `  ${rule}`);
      if ((binding.rules?.length ?? 0) > 20) rules.push(`  +${(binding.rules?.length ?? 0) - 20} more rule(s)`);
      if (!text.add([header, ...(rules.length ? rules : ['  no rules'])].join('\n'))) break;
    }
    if (bindings.length === 0)
      text.add(
        account
          ? `No binding names ${serviceAccountUser(account)}: RBAC grants it nothing beyond what every authenticated user has.`
          : 'No bindings.',
      );
    for (const binding of sameNameElsewhere) {
      text.add(
        `near miss: ${bindingLabel(binding)} -> ${binding.role.kind} ${binding.role.name}; subjects ${binding.subjects}: it names a service account "${account?.name ?? ''}" of another namespace, not ${account?.namespace ?? ''}`,
      );
    }
    for (const [index, binding] of similarName.entries()) {
      text.add(
        `near miss: ${bindingLabel(binding)} -> ${binding.role.kind} ${binding.role.name} binds ${binding.subject}, a name ${editDistance(misspelt[index]!.near, account?.name ?? '')} letter(s) off "${account?.name ?? ''}" (a misspelt subject?)`,
      );
    }
    return success(text.finish('ask for one serviceAccount, or check one request.'), data, text.truncated);
  },
};
