/**
 * One log line made shorter without losing what it says: a leading date-time becomes the
 * time of day, a JSON or logfmt record becomes `time level message key=value...`, and runs
 * of padding spaces become one.
 */

const TIME_PREFIXES: RegExp[] = [
  // 2026-11-29T09:57:11.310Z, 2026-11-29 09:57:11,400 +0000
  /^\d{4}-\d{2}-\d{2}[T ](\d{2}:\d{2}:\d{2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?\s+/,
  // [2026/11/29 15:59:41], [2026-11-29 08:40:33,400]
  /^\[\d{4}[-/]\d{2}[-/]\d{2}[T ](\d{2}:\d{2}:\d{2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]\s*/,
];

/** logfmt's usual head: `time=2026-11-18T09:36:30.499Z level=INFO msg="connected to database"`. */
const LOGFMT_HEAD =
  /^(?:time|ts|t)=("?)(\S+?)\1\s+(?:level|lvl)=("?)(\w+)\3\s+(?:msg|message)=("(?:[^"\\]|\\.)*"|\S+)\s*/;

/** klog: `E1129 10:00:00.123456       1 reflector.go:123] message`. */
const KLOG_PREFIX = /^([IWEF])\d{4} (\d{2}:\d{2}:\d{2})\.\d+\s+\d+ /;

const TIME_KEYS = ['ts', 'time', 'timestamp', '@timestamp', 't'];
const LEVEL_KEYS = ['level', 'severity', 'lvl', 'levelname'];
const MESSAGE_KEYS = ['msg', 'message', 'event'];

function timeOfDay(value: unknown): string | undefined {
  if (typeof value === 'number') return new Date(value > 1e12 ? value : value * 1000).toISOString().slice(11, 19);
  if (typeof value !== 'string') return undefined;
  const match = /\d{2}:\d{2}:\d{2}/.exec(value);
  return match?.[0];
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** A JSON log record as `09:57:11 error connect failed host=db port=5432`; other lines unchanged (undefined). */
function compactJsonRecord(line: string): string | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const fields = { ...(record as Record<string, unknown>) };
  const take = (keys: string[]): unknown => {
    for (const key of keys) {
      if (key in fields) {
        const value = fields[key];
        delete fields[key];
        return value;
      }
    }
    return undefined;
  };
  const parts = [timeOfDay(take(TIME_KEYS)), take(LEVEL_KEYS), take(MESSAGE_KEYS)]
    .filter((part) => part !== undefined && part !== '')
    .map(String);
  for (const [key, value] of Object.entries(fields)) parts.push(`${key}=${formatValue(value)}`);
  return parts.join(' ');
}

export function compactLogLine(line: string): string {
  const json = compactJsonRecord(line);
  if (json !== undefined) return json;
  let result = line;
  const logfmt = LOGFMT_HEAD.exec(result);
  if (logfmt) {
    const message = logfmt[5]?.startsWith('"') ? (JSON.parse(logfmt[5]) as string) : (logfmt[5] ?? '');
    const rest = result.slice(logfmt[0].length);
    return `${timeOfDay(logfmt[2]) ?? logfmt[2]} ${logfmt[4]} ${message}${rest ? ` ${rest}` : ''}`;
  }
  const klog = KLOG_PREFIX.exec(result);
  if (klog) result = `${klog[2]} ${klog[1]} ${result.slice(klog[0].length)}`;
  else {
    for (const prefix of TIME_PREFIXES) {
      const match = prefix.exec(result);
      if (match) {
        result = `${match[1]} ${result.slice(match[0].length)}`;
        break;
      }
    }
  }
  // Keep up to four spaces of indentation (stack traces), fold padding elsewhere.
  const indentation = /^\s*/.exec(result)?.[0] ?? '';
  return indentation.replace(/\t/g, '    ').slice(0, 4) + result.slice(indentation.length).replace(/ {2,}/g, ' ');
}
