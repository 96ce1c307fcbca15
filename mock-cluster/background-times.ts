/**
 * Moves a background cluster onto a scenario's clock: every time in its objects and logs is
 * shifted by the same amount, so an object 3h old on the background's clock is 3h old on
 * the scenario's. Only the times move; their precision and layout stay as written.
 */
import type { KubeObject, ScenarioLog } from './types.ts';
import { isRecord } from './types.ts';

/** A whole RFC 3339 value, as metav1.Time and MicroTime serialise (`Z` or an offset). */
const OBJECT_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** A time inside a log line: ISO 8601 with `T` or a space, zone optional (no zone is read as UTC). */
const LOG_TIME = /\b(\d{4}-\d{2}-\d{2})([T ])(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g;
/** The klog header of Kubernetes components: `I1201 09:58:03.123456`, which has no year. */
const KLOG_HEADER = /^([IWEF])(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2})\.(\d{6})/;

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** The fraction of a second at the precision it was written with (`.5`, `.123456`). */
function fraction(milliseconds: number, written: string | undefined): string {
  if (!written) return '';
  const digits = written.length - 1;
  const millis = pad(milliseconds % 1000, 3);
  return `.${(millis + written.slice(4)).slice(0, digits).padEnd(digits, '0')}`;
}

function shiftObjectTime(value: string, shiftMs: number): string {
  const match = OBJECT_TIME.exec(value);
  if (!match) return value;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) return value;
  const shifted = new Date(parsed + shiftMs);
  return `${shifted.toISOString().slice(0, 19)}${fraction(shifted.getUTCMilliseconds(), match[3])}Z`;
}

function shiftValue(value: unknown, shiftMs: number): unknown {
  if (typeof value === 'string') return shiftObjectTime(value, shiftMs);
  if (Array.isArray(value)) return value.map((item) => shiftValue(item, shiftMs));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, shiftValue(entry, shiftMs)]));
  return value;
}

/** A copy of `object` with every RFC 3339 value in it (metadata, spec, status, event times) shifted. */
export function shiftObjectTimes(object: KubeObject, shiftMs: number): KubeObject {
  return shiftValue(object, shiftMs) as KubeObject;
}

function shiftLogLine(line: string, shiftMs: number, referenceYear: number): string {
  const klog = KLOG_HEADER.exec(line);
  if (klog) {
    const [whole, level, month, day, time, micros] = klog;
    const parsed = Date.parse(`${referenceYear}-${month}-${day}T${time}.${(micros ?? '').slice(0, 3)}Z`);
    if (Number.isNaN(parsed)) return line;
    const shifted = new Date(parsed + shiftMs);
    const header = `${level}${pad(shifted.getUTCMonth() + 1)}${pad(shifted.getUTCDate())} ${shifted.toISOString().slice(11, 19)}.${pad(shifted.getUTCMilliseconds(), 3)}${(micros ?? '000000').slice(3)}`;
    return header + line.slice(whole.length);
  }
  return line.replace(
    LOG_TIME,
    (whole, date: string, separator: string, time: string, written: string | undefined, zone: string | undefined) => {
      const parsed = Date.parse(
        `${date}T${time}${written ?? ''}${zone ? zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2') : 'Z'}`,
      );
      if (Number.isNaN(parsed)) return whole;
      const shifted = new Date(parsed + shiftMs);
      const text = `${shifted.toISOString().slice(0, 10)}${separator}${shifted.toISOString().slice(11, 19)}${fraction(shifted.getUTCMilliseconds(), written)}`;
      // An offset is rewritten as UTC: the same instant, which is all a reader compares.
      return zone ? `${text}Z` : text;
    },
  );
}

/** A copy of `log` with the times its lines carry (ISO 8601 anywhere, klog headers) shifted. */
export function shiftLogTimes(log: ScenarioLog, shiftMs: number, backgroundNow: number): ScenarioLog {
  const year = new Date(backgroundNow).getUTCFullYear();
  return {
    ...log,
    text: log.text
      .split('\n')
      .map((line) => shiftLogLine(line, shiftMs, year))
      .join('\n'),
  };
}
