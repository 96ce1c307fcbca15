/**
 * Log lines in which a language runtime reports the program's own failure: panics,
 * uncaught exceptions, stack traces, start-up failures of a framework.
 */
import type { LogSignal } from './types.ts';

export const RUNTIME_CRASH_SIGNALS: readonly LogSignal[] = [
  {
    id: 'go-panic',
    verdict: 'app-crash',
    pattern: /panic:|goroutine \d+ \[running\]|\bpanic\b/i,
    means: 'A Go program panicked.',
    source:
      'Go runtime: panic: runtime error: invalid memory address or nil pointer dereference; goroutine 1 [running]:',
    examples: {
      match: ['panic: runtime error: invalid memory address or nil pointer dereference', 'goroutine 1 [running]:'],
      noMatch: ['recovered from handler error, request 42 answered 500'],
    },
  },
  {
    id: 'rust-panic',
    verdict: 'app-crash',
    pattern: /panicked at|called `(Result|Option)::unwrap\(\)`/i,
    means: 'A Rust program panicked.',
    source: "Rust std: thread 'main' panicked at src/main.rs:12:5: called `Result::unwrap()` on an `Err` value",
    examples: {
      match: ["thread 'main' panicked at src/config.rs:41:10:", 'called `Option::unwrap()` on a `None` value'],
      noMatch: ['config loaded from /etc/app/config.toml'],
    },
  },
  {
    id: 'python-traceback',
    verdict: 'app-crash',
    pattern: /Traceback \(most recent call last\)/i,
    means: 'A Python exception went unhandled; the last line of the traceback names it.',
    source: 'CPython: Traceback (most recent call last):',
    examples: { match: ['Traceback (most recent call last):'], noMatch: ['traceback logging enabled'] },
  },
  {
    id: 'python-runtime-error',
    verdict: 'app-crash',
    pattern: /KeyError|NameError|ModuleNotFoundError/i,
    means: 'A Python program failed on a missing key, name or module: a bug or a missing setting.',
    source: "CPython: KeyError: 'REPORT_BUCKET'; ModuleNotFoundError: No module named 'x'",
    examples: {
      match: ["KeyError: 'REPORT_BUCKET'", "ModuleNotFoundError: No module named 'psycopg2'"],
      noMatch: ['key REPORT_BUCKET read from environment'],
    },
  },
  {
    id: 'js-runtime-error',
    verdict: 'app-crash',
    pattern: /SyntaxError|TypeError|ReferenceError|Cannot find module/i,
    means: 'A JavaScript program failed on a bug, a syntax error or a missing module.',
    source: "Node and V8: TypeError: Cannot read properties of undefined (reading 'x'); Error: Cannot find module 'x'",
    examples: {
      match: [
        "TypeError: Cannot read properties of undefined (reading 'split')",
        "Error: Cannot find module '/app/dist/server.js'",
      ],
      noMatch: ['typechecked 412 files'],
    },
  },
  {
    id: 'js-stack-frame',
    verdict: 'app-crash',
    pattern: /^\s*at .+\(.+:\d+:\d+\)/i,
    means: 'A line of a JavaScript stack trace: an error was thrown.',
    source: 'V8 stack traces:     at Object.<anonymous> (/app/server.js:12:9)',
    examples: {
      match: ['    at Parser.parseErrorMessage (/app/node_modules/pg-protocol/dist/parser.js:287:98)'],
      noMatch: ['at 10:00:01 the batch started'],
    },
  },
  {
    id: 'jvm-runtime-error',
    verdict: 'app-crash',
    pattern: /NullPointerException|ClassNotFoundException/i,
    means: 'A JVM program failed on a null reference or a class missing from its classpath.',
    source: 'Java: java.lang.NullPointerException; java.lang.ClassNotFoundException: x',
    examples: {
      match: ['java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null'],
      noMatch: ['Loaded class com.acme.OrderService'],
    },
  },
  {
    id: 'unhandled-exception',
    verdict: 'app-crash',
    pattern: /Unhandled(PromiseRejection)?|uncaught exception|Exception in thread/i,
    means: 'An exception reached the top of the program unhandled.',
    source:
      'Node (UnhandledPromiseRejection), .NET (Unhandled exception.), Java (Exception in thread "main"), PHP (Uncaught exception)',
    examples: {
      match: [
        'Unhandled exception. System.InvalidOperationException: Sequence contains no elements',
        'Exception in thread "main" java.lang.IllegalStateException: missing config',
      ],
      noMatch: ['handled 1200 requests'],
    },
  },
  {
    id: 'named-exception',
    verdict: 'app-crash',
    pattern: /\b[A-Z][A-Za-z]+(Error|Exception)\b:/i,
    means: 'An error or exception class with its message: the program reports a failure.',
    source: 'Java, Python, JavaScript, .NET exception lines: SomeError: message',
    examples: {
      match: [
        'java.lang.IllegalStateException: Failed to execute ApplicationRunner',
        'ValueError: invalid literal for int() with base 10: "abc"',
      ],
      noMatch: ['error count: 0'],
    },
  },
  {
    id: 'ruby-error-class',
    verdict: 'app-crash',
    pattern: /\((\w+::)*\w+(Error|Exception)\)\s*$|\b(\w+::)+\w+(Error|Exception)\b/i,
    means: 'A Ruby exception: the message first, the class in parentheses, or a namespaced error class.',
    source: "Ruby: /app/x.rb:12:in `y': message (ActiveRecord::PendingMigrationError)",
    examples: {
      match: [
        "/usr/local/bundle/gems/activerecord-7.1.4/lib/active_record/migration.rb:709:in `check_all_pending!': Migrations are pending. (ActiveRecord::PendingMigrationError)",
      ],
      noMatch: ['Completed 200 OK in 12ms (Views: 3.1ms | ActiveRecord: 2.0ms)'],
    },
  },
  {
    id: 'elixir-exception',
    verdict: 'app-crash',
    pattern: /^\s*\*\* \([A-Z][\w.]*\)/,
    means: 'An Elixir process raised an exception.',
    source: 'Elixir: ** (RuntimeError) message / ** (UndefinedFunctionError) function X.y/0 is undefined',
    examples: {
      match: ['** (UndefinedFunctionError) function Shop.Repo.all/0 is undefined (module Shop.Repo is not available)'],
      noMatch: ['[info] ** Ecto migrations up to date'],
    },
  },
  {
    id: 'spring-startup-failed',
    verdict: 'app-crash',
    pattern:
      /APPLICATION FAILED TO START|Application run failed|Web server failed to start|Error creating bean with name|BeanCreationException|UnsatisfiedDependencyException/,
    means:
      'Spring Boot could not start the application context. A nested cause on the same line (a refused connection, a refused login) says more and wins; alone it is a wiring or configuration bug of the app.',
    source:
      "Spring Boot: APPLICATION FAILED TO START; o.s.boot.SpringApplication: Application run failed; BeanCreationException: Error creating bean with name 'x'",
    examples: {
      match: [
        'ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed',
        "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'orderController': Unsatisfied dependency expressed through constructor parameter 0: No qualifying bean of type 'com.acme.PaymentClient' available",
      ],
      noMatch: ['INFO 1 --- [main] com.acme.OrdersApplication : Started OrdersApplication in 4.2 seconds'],
    },
  },
  {
    id: 'dotnet-di-unresolved',
    verdict: 'app-crash',
    pattern: /Unable to resolve service for type|No service for type '[^']+' has been registered/,
    means:
      '.NET dependency injection has no registration for a type the app asks for: a wiring bug in the app, not a network dependency.',
    source:
      "Microsoft.Extensions.DependencyInjection: System.InvalidOperationException: Unable to resolve service for type 'X' while attempting to activate 'Y'.",
    outranks: {
      verdicts: ['dependency-unreachable'],
      because: '"Unable to resolve" here names a type in the container, not a host name.',
    },
    examples: {
      match: [
        "System.InvalidOperationException: Unable to resolve service for type 'Shop.Orders.IOrderRepository' while attempting to activate 'Shop.Orders.OrdersController'.",
      ],
      noMatch: ['System.Net.Http.HttpRequestException: No such host is known. (inventory:80)'],
    },
  },
  {
    id: 'js-module-not-resolved',
    verdict: 'app-crash',
    pattern: /Module not found: Error: Can't resolve/,
    means: 'A bundled JavaScript app references a module that is not in the build.',
    source: "webpack: Module not found: Error: Can't resolve './config' in '/app/src'",
    outranks: {
      verdicts: ['dependency-unreachable'],
      because: '"Can\'t resolve" here names a module path, not a host name.',
    },
    examples: {
      match: ["Module not found: Error: Can't resolve './config/production' in '/app/src'"],
      noMatch: ['curl: (6) Could not resolve host: inventory'],
    },
  },
];
