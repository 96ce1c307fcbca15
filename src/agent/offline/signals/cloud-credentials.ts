/**
 * Log lines that say a cloud provider or platform API (the Kubernetes API, Vault) refused
 * the app's identity: keys that are wrong or expired, a role without the permission it
 * needs, no credentials found at all. An IAM or RBAC refusal of an action counts as refused
 * credentials: the fix is the identity or its policy.
 */
import type { LogSignal } from './types.ts';

export const CLOUD_CREDENTIAL_SIGNALS: readonly LogSignal[] = [
  {
    id: 'token-expired',
    verdict: 'bad-credentials',
    pattern: /token (is )?expired|expired token|ExpiredToken/i,
    means: 'The token or session credentials the app uses have expired.',
    source:
      'AWS STS (ExpiredToken: The security token included in the request is expired), JWT and OAuth clients: token is expired',
    examples: {
      match: [
        'botocore.exceptions.ClientError: An error occurred (ExpiredToken) when calling the ListObjectsV2 operation: The security token included in the request is expired',
        'jwt: token is expired by 2h3m10s',
      ],
      noMatch: ['refreshed service account token, expires in 3600s'],
    },
  },
  {
    id: 'aws-invalid-keys',
    verdict: 'bad-credentials',
    pattern:
      /InvalidClientTokenId|InvalidAccessKeyId|SignatureDoesNotMatch|UnrecognizedClientException|security token included in the request is (expired|invalid)/,
    means: 'AWS does not recognise the access key, or the secret key does not sign correctly.',
    source:
      'AWS APIs via the SDKs: InvalidClientTokenId: The security token included in the request is invalid / SignatureDoesNotMatch',
    examples: {
      match: [
        'InvalidClientTokenId: The security token included in the request is invalid.\tstatus code: 403, request id: 6c1e3f1a',
        'S3ServiceException: SignatureDoesNotMatch: The request signature we calculated does not match the signature you provided.',
        'UnrecognizedClientException: The security token included in the request is invalid.',
      ],
      noMatch: ['aws: using access key from environment (AWS_ACCESS_KEY_ID)'],
    },
  },
  {
    id: 'aws-access-denied',
    verdict: 'bad-credentials',
    pattern: /\bAccessDenied(Exception)?\b|is not authorized to perform:? [\w-]+:\w+/,
    means: "AWS IAM refused an action to the app's identity: the role or policy lacks the permission.",
    source:
      'AWS IAM via the SDKs: AccessDenied / AccessDeniedException: User: arn:aws:sts::...:assumed-role/x is not authorized to perform: s3:GetObject',
    examples: {
      match: [
        'botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject operation: Access Denied',
        'AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/orders-irsa/botocore-session-1 is not authorized to perform: sqs:SendMessage on resource: arn:aws:sqs:eu-west-1:123456789012:orders',
      ],
      noMatch: ['Access denied to /admin for anonymous visitor', 'GET /reports 200 AccessLogEnabled=true'],
    },
  },
  {
    id: 'cloud-credentials-missing',
    verdict: 'bad-credentials',
    pattern:
      /Unable to locate credentials|NoCredentialProviders|NoCredentialsError|Could not load credentials from any providers|WebIdentityErr|Could not automatically determine credentials|could not find default credentials/i,
    means: 'The SDK found no credentials at all: no keys, no workload identity, no instance role.',
    source:
      'AWS SDKs (NoCredentialsError: Unable to locate credentials; NoCredentialProviders: no valid providers in chain), Google auth (DefaultCredentialsError)',
    examples: {
      match: [
        'botocore.exceptions.NoCredentialsError: Unable to locate credentials',
        'NoCredentialProviders: no valid providers in chain. Deprecated.',
        'google.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials. Please set GOOGLE_APPLICATION_CREDENTIALS',
      ],
      noMatch: ['aws: credentials loaded from web identity token file'],
    },
  },
  {
    id: 'azure-ad-error',
    verdict: 'bad-credentials',
    pattern: /AADSTS\d{5,}/,
    means:
      'Microsoft Entra ID (Azure AD) refused the sign-in: wrong or expired client secret, unknown application, wrong tenant.',
    source:
      'Microsoft Entra ID via MSAL and azure-identity: AADSTS7000215: Invalid client secret provided / AADSTS700016: Application not found / AADSTS7000222: The provided client secret keys are expired',
    examples: {
      match: [
        'ClientSecretCredential authentication failed: AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
        "AADSTS700016: Application with identifier '1f0c...' was not found in the directory 'contoso'.",
        'AADSTS7000222: The provided client secret keys for app are expired.',
      ],
      noMatch: ['azure-identity: token acquired for https://vault.azure.net/.default'],
    },
  },
  {
    id: 'oauth-invalid-grant',
    verdict: 'bad-credentials',
    pattern: /invalid_grant|invalid_client/,
    means: 'The OAuth server refused the grant or the client: revoked refresh token, bad key, wrong client secret.',
    source:
      'OAuth 2.0 token endpoints (RFC 6749 error codes), Google auth: RefreshError: invalid_grant: Invalid JWT Signature.',
    examples: {
      match: [
        "google.auth.exceptions.RefreshError: ('invalid_grant: Invalid JWT Signature.', {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})",
        'oauth2: cannot fetch token: 401 Unauthorized Response: {"error":"invalid_client"}',
      ],
      noMatch: ['oauth2: token refreshed, grant_type=client_credentials'],
    },
  },
  {
    id: 'gcp-permission-denied',
    verdict: 'bad-credentials',
    pattern: /PERMISSION_DENIED|Request had insufficient authentication scopes/,
    means: "Google Cloud IAM refused the action to the app's service account.",
    source: "Google Cloud APIs: 403 PERMISSION_DENIED: Permission 'pubsub.topics.publish' denied on resource",
    examples: {
      match: [
        "google.api_core.exceptions.PermissionDenied: 403 PERMISSION_DENIED: Permission 'pubsub.topics.publish' denied on resource (or it may not exist).",
        'io.grpc.StatusRuntimeException: PERMISSION_DENIED: Request had insufficient authentication scopes.',
      ],
      noMatch: ['open /data/ledger.db: permission denied'],
    },
  },
  {
    id: 'gcp-invalid-authentication',
    verdict: 'bad-credentials',
    pattern: /Request had invalid authentication credentials/,
    means: 'Google Cloud rejected the access token the app sent.',
    source: 'Google Cloud APIs: 401 Request had invalid authentication credentials. Expected OAuth 2 access token',
    examples: {
      match: [
        'googleapi: Error 401: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential., unauthorized',
      ],
      noMatch: ['google-auth: refreshed credentials for orders@proj.iam.gserviceaccount.com'],
    },
  },
  {
    id: 'kubernetes-rbac-forbidden',
    verdict: 'bad-credentials',
    pattern: /cannot (get|list|watch|create|update|patch|delete|deletecollection) resource \\*"[^"\\]+\\*"/,
    means:
      "The Kubernetes API refused an action to the app's service account: its Role or ClusterRole lacks the permission.",
    source:
      'kube-apiserver RBAC, relayed by client-go and the other clients: User "system:serviceaccount:ns:sa" cannot list resource "pods" in API group "" in the namespace "ns"',
    examples: {
      match: [
        'E1129 09:58:02.114512       1 reflector.go:147] pkg/mod/k8s.io/client-go@v0.31.0/tools/cache/reflector.go:243: Failed to watch *v1.ConfigMap: configmaps is forbidden: User "system:serviceaccount:shop:web" cannot watch resource "configmaps" in API group "" in the namespace "shop"',
        // The Python and Java clients print the API server's JSON body, its quotes escaped.
        'HTTP response body: {"kind":"Status","message":"jobs.batch is forbidden: User \\"system:serviceaccount:render:dispatcher\\" cannot list resource \\"jobs\\" in API group \\"batch\\" in the namespace \\"render-jobs\\"","code":403}',
      ],
      noMatch: [
        'I1129 09:58:02.114512       1 reflector.go:359] Caches populated for *v1.ConfigMap',
        'kubernetes.client.exceptions.ApiException: (403)',
      ],
    },
  },
  {
    id: 'vault-permission-denied',
    verdict: 'bad-credentials',
    pattern: /Code: 40[013]\. Errors:|vault: .*(permission denied|missing client token)/i,
    means: "HashiCorp Vault refused the app's token or its policy does not allow the path.",
    source: 'Vault API clients: Error making API request. ... Code: 403. Errors: * permission denied',
    examples: {
      match: ['Code: 403. Errors:', 'vault: error reading secret/data/orders: permission denied'],
      noMatch: ['Code: 404. Errors:'],
    },
  },
];
