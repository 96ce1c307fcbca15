/**
 * What started a run: a firing Alertmanager alert, or a sentence from a person. The
 * description the model reads passes the redactor: a person may paste a password into an
 * incident, and an alert's labels and annotations may quote one.
 */
import { redactNamedValue, redactText } from '../redact/redactor.ts';

export interface AlertTrigger {
  kind: 'alert';
  alert: {
    labels: Record<string, string>;
    annotations: Record<string, string>;
    startsAt?: string;
    fingerprint?: string;
    generatorURL?: string;
  };
}

export interface IncidentTrigger {
  kind: 'incident';
  text: string;
  namespace?: string;
}

export type Trigger = AlertTrigger | IncidentTrigger;

/** The namespace a trigger points at, when it names one. */
export function triggerNamespace(trigger: Trigger): string | undefined {
  return trigger.kind === 'alert' ? trigger.alert.labels.namespace || undefined : trigger.namespace;
}

/** The first message of the conversation: the trigger, stated as data, with credentials masked. */
export function describeTrigger(trigger: Trigger): string {
  return redactText(composeDescription(trigger));
}

function composeDescription(trigger: Trigger): string {
  if (trigger.kind === 'incident') {
    const scope = trigger.namespace ? ` (namespace: ${trigger.namespace})` : '';
    return `A person on call reports${scope}:\n"""\n${redactText(trigger.text)}\n"""\nFind out why, then submit your diagnosis.`;
  }
  // Each label and annotation is masked by its own name first (`db_password=x`), then the whole text by shape.
  const labels = Object.entries(trigger.alert.labels).map(([key, value]) => `  ${key}=${redactNamedValue(key, value)}`);
  const annotations = Object.entries(trigger.alert.annotations).map(
    ([key, value]) => `  ${key}: ${redactNamedValue(key, value)}`,
  );
  return [
    `Alert firing: ${trigger.alert.labels.alertname ?? '(no alertname)'}${trigger.alert.startsAt ? ` since ${trigger.alert.startsAt}` : ''}`,
    'labels:',
    ...labels,
    ...(annotations.length > 0 ? ['annotations:', ...annotations] : []),
    'Find out why it fired, then submit your diagnosis.',
  ].join('\n');
}
