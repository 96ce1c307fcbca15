/**
 * Log lines that say the other end refused the app's identity at the transport: a
 * certificate that is expired, untrusted or for another name; a gRPC or HTTP call answered
 * "unauthenticated" or "forbidden". Only responses the app received count: the app's own
 * access log of requests it answered with 401 is no failure (access-log.ts).
 */
import type { LogSignal } from './types.ts';

export const TRANSPORT_CREDENTIAL_SIGNALS: readonly LogSignal[] = [
  {
    id: 'tls-certificate-expired',
    verdict: 'bad-credentials',
    pattern: /certificate has expired|certificate (is not yet valid|expired)|CERT_HAS_EXPIRED/i,
    means: 'A certificate in the TLS handshake is expired (or not yet valid).',
    source:
      'Go crypto/x509: x509: certificate has expired or is not yet valid; Node: CERT_HAS_EXPIRED; OpenSSL: certificate verify failed: certificate has expired',
    examples: {
      match: [
        'x509: certificate has expired or is not yet valid: current time 2026-11-29T09:12:44Z is after 2026-11-28T23:59:59Z',
        'FetchError: request to https://billing.internal/v1/invoices failed, reason: certificate has expired',
      ],
      noMatch: ['cert-manager: certificate renewed, expires 2027-02-27'],
    },
  },
  {
    id: 'tls-unknown-authority',
    verdict: 'bad-credentials',
    pattern:
      /certificate signed by unknown authority|certificate verify failed|unable to get local issuer certificate|self[- ]signed certificate|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify the first certificate|PKIX path building failed/i,
    means:
      "The peer's certificate is not signed by an authority the app trusts: a missing CA bundle or a self-signed certificate.",
    source:
      'Go crypto/x509: x509: certificate signed by unknown authority; Python ssl: CERTIFICATE_VERIFY_FAILED; Node: unable to verify the first certificate; Java: PKIX path building failed',
    examples: {
      match: [
        'Get "https://vault.security:8200/v1/sys/health": tls: failed to verify certificate: x509: certificate signed by unknown authority',
        'ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)',
        'javax.net.ssl.SSLHandshakeException: PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target',
      ],
      noMatch: ['loaded 142 certificates from /etc/ssl/certs/ca-certificates.crt'],
    },
  },
  {
    id: 'tls-name-mismatch',
    verdict: 'bad-credentials',
    pattern:
      /x509: certificate is valid for|Hostname\/IP does not match certificate|ERR_TLS_CERT_ALTNAME_INVALID|doesn't match any of the subject alternative names|No subject alternative (DNS )?names? matching/i,
    means: 'The certificate the peer presented is for another name than the one the app dialled.',
    source:
      'Go crypto/x509: x509: certificate is valid for a, b, not c; Node: ERR_TLS_CERT_ALTNAME_INVALID; Java: No subject alternative DNS name matching',
    examples: {
      match: [
        'tls: failed to verify certificate: x509: certificate is valid for ingress.local, not orders-api.shop.svc',
        "Error [ERR_TLS_CERT_ALTNAME_INVALID]: Hostname/IP does not match certificate's altnames: Host: payments. is not in the cert's altnames: DNS:api.example.com",
      ],
      noMatch: ['serving certificate for orders-api.shop.svc, valid until 2027-01-01'],
    },
  },
  {
    id: 'tls-peer-refused-handshake',
    verdict: 'bad-credentials',
    pattern:
      /tls: (bad certificate|certificate required|unknown certificate authority|expired certificate|handshake failure)|sslv3 alert (handshake failure|bad certificate)|Received fatal alert: (handshake_failure|bad_certificate|certificate_required)/i,
    means:
      'The peer was reached and aborted the TLS handshake: mostly a client certificate it does not accept or did not get (mutual TLS); sometimes a protocol or cipher it will not speak. Certificates are credentials: check the ones the app presents.',
    source:
      'Go crypto/tls: remote error: tls: bad certificate / tls: handshake failure; OpenSSL: sslv3 alert handshake failure; Java: Received fatal alert: handshake_failure',
    examples: {
      match: [
        'rpc error: code = Unavailable desc = connection error: desc = "transport: authentication handshake failed: remote error: tls: bad certificate"',
        'remote error: tls: handshake failure',
        'javax.net.ssl.SSLHandshakeException: Received fatal alert: certificate_required',
      ],
      noMatch: ['tls: handshake complete, negotiated TLS 1.3 with TLS_AES_128_GCM_SHA256'],
    },
  },
  {
    id: 'grpc-unauthenticated',
    verdict: 'bad-credentials',
    pattern: /Unauthenticated/i,
    means: 'A gRPC (or other) server answered that the call carried no valid credentials.',
    source:
      'gRPC status UNAUTHENTICATED (16): rpc error: code = Unauthenticated desc = ...; io.grpc.StatusRuntimeException: UNAUTHENTICATED',
    examples: {
      match: [
        'rpc error: code = Unauthenticated desc = invalid token',
        'io.grpc.StatusRuntimeException: UNAUTHENTICATED: Failed computing credential metadata',
      ],
      noMatch: ['rpc error: code = NotFound desc = order 1234 not found'],
    },
  },
  {
    id: 'grpc-permission-denied',
    verdict: 'bad-credentials',
    pattern: /code = PermissionDenied|StatusCode\.PERMISSION_DENIED/,
    means: 'A gRPC server knows the caller but refuses the method to it.',
    source:
      'gRPC status PERMISSION_DENIED (7): rpc error: code = PermissionDenied desc = ...; Python grpc StatusCode.PERMISSION_DENIED',
    examples: {
      match: [
        'rpc error: code = PermissionDenied desc = caller spiffe://cluster.local/ns/shop/sa/web is not allowed to call orders.v1.Orders/Cancel',
        'grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with: status = StatusCode.PERMISSION_DENIED details = "denied">',
      ],
      noMatch: ['rpc error: code = FailedPrecondition desc = order already shipped'],
    },
  },
  {
    id: 'http-dependency-refused-identity',
    verdict: 'bad-credentials',
    pattern:
      /Request failed with status code 40[13]\b|\b40[13] Client Error\b|HttpClientErrorException\$(Unauthorized|Forbidden)|unexpected (HTTP )?status( code)?:? 40[13]\b|\bHTTP\/\d(\.\d)? 40[13]\b|status(_?code)?[=:] ?"?40[13]\b.*\bhttps?:\/\//i,
    means: 'An HTTP API the app called answered 401 or 403: its credentials were refused.',
    source:
      'HTTP clients: axios (Request failed with status code 401), requests (401 Client Error: Unauthorized for url), Spring RestTemplate (HttpClientErrorException$Forbidden), Go clients (unexpected status code 401), a raw HTTP/1.1 401 response',
    examples: {
      match: [
        'AxiosError: Request failed with status code 401',
        'requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://api.github.com/repos/acme/shop/hooks',
        'level=error msg="payment call failed" status=401 calling https://payments.example.com/v1/charges',
        'HTTP/1.1 401 Unauthorized',
      ],
      noMatch: [
        '10.1.2.3 - - [29/Nov/2026:10:00:01 +0000] "GET /admin HTTP/1.1" 401 12 "-" "curl/8.0"',
        'method=GET path=/admin status=401 duration=2ms',
      ],
    },
  },
  {
    id: 'http-unauthorized',
    verdict: 'bad-credentials',
    pattern: /unauthori[sz]ed|\b401\b.*(unauthori|auth)/i,
    means: 'A dependency answered "unauthorized": it does not accept the credentials the app sent.',
    source:
      'HTTP 401 reason phrase as clients report it: Spring (401 Unauthorized: [no body]), Go oauth2 (401 Unauthorized), registry and API clients',
    examples: {
      match: [
        'org.springframework.web.client.HttpClientErrorException$Unauthorized: 401 Unauthorized: [no body]',
        'oauth2: cannot fetch token: 401 Unauthorized',
        "Error response from daemon: pull access denied for acme/shop, repository does not exist or may require 'docker login': denied: requested access to the resource is denied; unauthorized: authentication required",
      ],
      noMatch: ['10.1.2.3 - - [29/Nov/2026:10:00:01 +0000] "GET /admin HTTP/1.1" 401 12 "-" "curl/8.0"'],
    },
  },
];
