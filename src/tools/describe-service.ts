/**
 * `describe_service`: one Service's selector, ports and endpoints, the pods its selector
 * matches (ready or not, each unhealthy one with its problem), and when it matches none, the
 * label values the namespace's pods carry for the same keys, so a mistyped selector shows at once.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { BudgetedText } from './format/budget.ts';
import { formatServiceDetails, readServiceDetails, type ServiceDetailsData } from './format/service-details.ts';
import { failureFrom, success } from './tool-results.ts';
import { missingNamespace } from './missing-namespace.ts';
import type { ReadTool } from './tool.ts';

export type { ServiceDetailsData };

const input = z.object({
  namespace: namespaceName().describe('Namespace of the Service'),
  name: objectName().describe('Service name'),
});

export const describeServiceTool: ReadTool<typeof input, ServiceDetailsData, 'describe_service'> = {
  name: 'describe_service',
  description:
    'Shows one Service: type, selector, ports (port -> targetPort), ready and not-ready endpoints with their pods, the pods its selector ' +
    "matches by status with each unhealthy pod's problem (waiting or termination reason, restarts, the previous run's exit, the scheduler's " +
    "message), target ports no matched pod declares, and when the selector matches no pod, the values the namespace's pods carry " +
    'for the selector\'s label keys (a typo in the selector shows here). Use it for 503s and "no endpoints" alerts, and for the backend a client cannot reach.',
  input,
  risk: 'read',
  async run(args, context) {
    const service = await context.cluster.get(
      'Service',
      { namespace: args.namespace, name: args.name },
      { signal: context.signal },
    );
    if (!service.ok && service.error.kind === 'not-found') {
      const missing = await missingNamespace(args.namespace, context);
      if (missing) return missing;
    }
    if (!service.ok)
      return failureFrom(
        service.error,
        service.error.kind === 'not-found' ? `Use list_services in "${args.namespace}".` : undefined,
      );
    const details = await readServiceDetails({
      cluster: context.cluster,
      service: service.value,
      signal: context.signal,
    });
    const text = new BudgetedText(context.outputBudgetBytes);
    for (const line of formatServiceDetails(details, context.cluster.now())) text.addIfRoom(line);
    return success(text.finish('use list_pods with the selector for the pods.'), details.data, text.truncated);
  },
};
