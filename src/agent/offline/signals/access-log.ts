/**
 * Lines of the app's own access log: requests it served and the status it answered. A 401
 * or 500 there is the app doing its job (or a client's problem), not a failure of the
 * app, so these lines carry no log verdict whatever words they contain.
 */
import type { Row } from './types.ts';

export const ACCESS_LOG_FORMS: readonly Row[] = [
  {
    id: 'access-log-common',
    pattern: /^\S+ \S+ \S+ \[[^\]]+\] "[A-Z]+ \S+ HTTP\/[\d.]+" \d{3} /,
    means: 'A request the app (or its web server) served, in Common or Combined Log Format.',
    source:
      'Apache httpd and nginx access logs, gunicorn, Rails, Express morgan "combined": 10.1.2.3 - - [29/Nov/2026:10:00:01 +0000] "GET /admin HTTP/1.1" 401 12 "-" "curl/8.0"',
    examples: {
      match: [
        '10.1.2.3 - - [29/Nov/2026:10:00:01 +0000] "GET /admin HTTP/1.1" 401 12 "-" "curl/8.0"',
        '10.244.0.1 - alice [29/Nov/2026:10:00:02 +0000] "POST /api/auth/login HTTP/2.0" 403 57 "https://shop.example.com/" "Mozilla/5.0"',
      ],
      noMatch: ['HTTP/1.1 401 Unauthorized'],
    },
  },
  {
    id: 'access-log-fields',
    pattern:
      /\bmethod[=:]\s*"?[A-Z]+"?[,\s].*\b(path|uri|route)[=:]\s*"?\/\S*.*\bstatus(_?code)?[=:]\s*"?\d{3}\b|"method":\s*"[A-Z]+".*"(path|uri|route)":\s*"\/[^"]*".*"status(_?code)?":\s*"?\d{3}/i,
    means: 'A request the app served, as structured key=value or JSON fields (method, path, status).',
    source:
      'Structured request logging: Go slog/zap/logrus middleware, pino-http, structlog: method=GET path=/admin status=401',
    examples: {
      match: [
        'method=GET path=/admin status=401 duration=2ms',
        '{"level":"info","method":"POST","path":"/api/login","status":401,"msg":"request completed"}',
      ],
      noMatch: [
        'level=error msg="payment call failed" method=POST url=https://payments.example.com/v1/charges status=401',
      ],
    },
  },
  {
    id: 'access-log-gin',
    pattern: /^\[GIN\] .*\| *\d{3} \|/,
    means: 'A request a Go Gin server served.',
    source: 'Gin logger middleware: [GIN] 2026/11/29 - 10:00:01 | 401 |  12.3µs | 10.1.2.3 | GET "/api/auth/me"',
    examples: {
      match: ['[GIN] 2026/11/29 - 10:00:01 | 401 |      12.3µs |    10.244.1.9 | GET      "/api/auth/me"'],
      noMatch: ['[GIN-debug] Listening and serving HTTP on :8080'],
    },
  },
];

/** Whether the line is the app's record of a request it served. */
export function isAccessLogLine(line: string): boolean {
  return ACCESS_LOG_FORMS.some((form) => form.pattern.test(line));
}
