/**
 * Rule `image-pull`: a container waiting for an image that cannot be pulled, with the
 * registry's answer from the kubelet's events.
 */
import type { CaseView, Finding } from '../case.ts';
import { isImagePullReason } from '../container-signals.ts';
import { eventLine, stateLine } from '../evidence.ts';
import { containerPlace } from './view.ts';

export function isImagePullWait(view: CaseView): boolean {
  return isImagePullReason(view.waiting?.reason);
}

export function imagePullFinding(view: CaseView): Finding {
  const container = view.container!;
  const events = view.pod?.events ?? [];
  // The kubelet's "Failed to pull image ...: <registry's answer>" says why; "Error: ErrImagePull" only that.
  const pullEvents = events
    .filter(
      (event) =>
        event.type === 'Warning' &&
        /Failed to pull image|ErrImagePull|not found|manifest unknown|unauthorized|denied/i.test(event.message),
    )
    .sort(
      (left, right) =>
        Number(/Failed to pull image/i.test(right.message)) - Number(/Failed to pull image/i.test(left.message)) ||
        right.message.length - left.message.length,
    );
  const pullSecrets = view.pod?.spec.imagePullSecrets ?? [];
  const unauthorized = pullEvents.some((event) =>
    /unauthori[sz]ed|denied|401|403|authentication required/i.test(event.message),
  );
  return {
    category: 'image-pull',
    cause: `the image ${container.image} cannot be pulled${unauthorized ? ' (the registry refuses the pull)' : ''}`,
    evidence: [
      `${containerPlace(view)} is waiting: ${stateLine(view.waiting!)}`,
      ...pullEvents.slice(0, 2).map(eventLine),
      `image: ${container.image}`,
      ...(unauthorized ? [`pod imagePullSecrets: ${pullSecrets.length ? pullSecrets.join(', ') : 'none'}`] : []),
    ],
    confidence: 'high',
  };
}
