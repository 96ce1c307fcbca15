/**
 * The ports a process says it listens on, read from its own log ("listening on :9090",
 * "Now listening on: http://[::]:8080", "Tomcat started on port(s): 8080 (http)"), and the
 * ports the kubelet's probes were refused on ("dial tcp 10.0.0.5:8080: connect: connection
 * refused"). What a container declares in `ports` is only a declaration: its log says what
 * it serves.
 */

export interface PortForm {
  id: string;
  pattern: RegExp;
  examples: { match: Array<{ line: string; port: number }>; noMatch: string[] };
}

export const LISTENING_FORMS: readonly PortForm[] = [
  {
    id: 'listening-address',
    pattern:
      /\b(?:listen(?:ing|s)?|serving|running|bound|started)\b[^\n]{0,40}?(?:on|at)?:?\s*(?:[a-z]+:\/\/)?(?:\[[^\]]*\]|[\w.-]+|\*)?:(\d{2,5})\b/i,
    examples: {
      match: [
        { line: '{"level":"info","msg":"listening on :9090","component":"http"}', port: 9090 },
        { line: 'Now listening on: http://[::]:8080', port: 8080 },
        { line: 'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)', port: 8000 },
      ],
      noMatch: ['connected to redis at cache:6379', 'GET /healthz 200 3ms'],
    },
  },
  {
    id: 'listening-port-word',
    pattern: /\b(?:listen(?:ing|s)?|serving|running|started|bound)\b[^\n]{0,40}?\bport(?:\(s\))?:?\s*(\d{2,5})\b/i,
    examples: {
      match: [
        {
          line: 'o.s.b.w.embedded.tomcat.TomcatWebServer : Tomcat started on port(s): 8081 (http) with context path',
          port: 8081,
        },
        { line: 'Server listening on port 3000', port: 3000 },
      ],
      noMatch: ['connection to port 5432 refused', 'retrying port 6379 in 5s'],
    },
  },
];

/** Every port the log lines say the process listens on, in order, each once. */
export function listeningPortsIn(lines: readonly string[]): number[] {
  const ports: number[] = [];
  for (const line of lines) {
    for (const form of LISTENING_FORMS) {
      const port = Number(form.pattern.exec(line)?.[1]);
      if (Number.isInteger(port) && port > 0 && port < 65536 && !ports.includes(port)) ports.push(port);
    }
  }
  return ports;
}

const REFUSED = /\bprobe failed\b.*\bdial tcp [^\s:]+:(\d{1,5}): connect: connection refused/i;

/** The ports the kubelet's probe failures (Unhealthy events) say were refused: nothing listened there. */
export function refusedProbePorts(messages: readonly string[]): number[] {
  const ports: number[] = [];
  for (const message of messages) {
    const port = Number(REFUSED.exec(message)?.[1]);
    if (port > 0 && !ports.includes(port)) ports.push(port);
  }
  return ports;
}
