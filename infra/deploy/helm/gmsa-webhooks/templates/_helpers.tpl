{{/* Names: <release> when it contains the chart's name, else <release>-<chart>; at most 52 characters so that
"-authorize" and Kubernetes' 63-character limit leave room. */}}
{{- define "gmsa-webhooks.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "gmsa-webhooks.labels" -}}
app.kubernetes.io/name: {{ default .Chart.Name .Values.nameOverride }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Pod labels of one function; the Service and the PDB select them. Call with (dict "root" $ "fn" "expand"). */}}
{{- define "gmsa-webhooks.selectorLabels" -}}
app.kubernetes.io/name: {{ default .root.Chart.Name .root.Values.nameOverride }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .fn }}
{{- end -}}

{{/* The Secret holding the serving certificate (tls.crt, tls.key, ca.crt). */}}
{{- define "gmsa-webhooks.tlsSecretName" -}}
{{- .Values.certificates.secretName | default (printf "%s-tls" (include "gmsa-webhooks.fullname" .)) -}}
{{- end -}}

{{/* The Secret holding each function's caller credential (keys expand, authorize). */}}
{{- define "gmsa-webhooks.callerSecretName" -}}
{{- .Values.callerAuth.existingSecret | default (printf "%s-caller-auth" (include "gmsa-webhooks.fullname" .)) -}}
{{- end -}}

{{/* The first path secret of a function ("" unless callerAuth.mode is path). Call with (dict "root" $ "fn" "expand"). */}}
{{- define "gmsa-webhooks.pathSecret" -}}
{{- if eq .root.Values.callerAuth.mode "path" -}}
{{- $value := index .root.Values.callerAuth .fn | required (printf "callerAuth.%s: the path secret of %s is required with callerAuth.mode path (the webhook URL carries it; openssl rand -hex 24)" .fn .fn) -}}
{{- $first := splitList "," $value | first | trim -}}
{{- if not (regexMatch "^[A-Za-z0-9._~-]{32,}$" $first) -}}
{{- fail (printf "callerAuth.%s: a path secret is at least 32 characters of A-Z a-z 0-9 - . _ ~" .fn) -}}
{{- end -}}
{{- $first -}}
{{- end -}}
{{- end -}}

{{/* The path a function is served at: /expand, or /expand/<secret> with path caller auth. */}}
{{- define "gmsa-webhooks.reviewPath" -}}
{{- $secret := include "gmsa-webhooks.pathSecret" . -}}
{{- printf "/%s" .fn -}}{{- if $secret }}/{{ $secret }}{{- end -}}
{{- end -}}

{{/* "true" when authorize runs in shadow mode: ENFORCEMENT=warn in authorize.env, else in env. */}}
{{- define "gmsa-webhooks.shadowMode" -}}
{{- $enforcement := default .Values.env.ENFORCEMENT .Values.authorize.env.ENFORCEMENT -}}
{{- if eq (toString $enforcement) "warn" }}true{{ end -}}
{{- end -}}

{{/* Everything of one webhook but clientConfig, from the shared file files/webhooks/<fn>.yaml (also the
kustomize base infra/deploy/webhooks), with the chart's overrides. In shadow mode authorize's failurePolicy is Ignore
unless webhooks.failurePolicy says otherwise: shadow mode never blocks, not even while authorize is down.
Call with (dict "root" $ "fn" "expand"). */}}
{{- define "gmsa-webhooks.webhook" -}}
{{- $file := fromYaml (.root.Files.Get (printf "files/webhooks/%s.yaml" .fn)) -}}
{{- $webhook := omit (first $file.webhooks) "clientConfig" -}}
{{- $values := .root.Values.webhooks -}}
{{- if and (eq .fn "authorize") (include "gmsa-webhooks.shadowMode" .root) }}{{ $_ := set $webhook "failurePolicy" "Ignore" }}{{ end -}}
{{- if not (kindIs "invalid" $values.failurePolicy) }}{{ $_ := set $webhook "failurePolicy" $values.failurePolicy }}{{ end -}}
{{- if not (kindIs "invalid" $values.timeoutSeconds) }}{{ $_ := set $webhook "timeoutSeconds" $values.timeoutSeconds }}{{ end -}}
{{- $_ := set $webhook "namespaceSelector" (include "gmsa-webhooks.namespaceSelector" (dict "root" .root "file" $file) | fromYaml) -}}
{{- toYaml $webhook -}}
{{- end -}}

{{/* The namespaceSelector of the webhooks (and of the optional policy): the shared file's, with its exemption
(kubernetes.io/metadata.name NotIn, a name no namespace creator can choose) set to webhooks.exemptNamespaces and
dropped when that is empty (NotIn needs values), then the chart's additions. Call with (dict "root" $ "file" $file),
$file one parsed files/webhooks/<fn>.yaml. */}}
{{- define "gmsa-webhooks.namespaceSelector" -}}
{{- $values := .root.Values.webhooks -}}
{{- $expressions := list -}}
{{- range (first .file.webhooks).namespaceSelector.matchExpressions -}}
{{- if ne .key "kubernetes.io/metadata.name" }}{{ $expressions = append $expressions . }}
{{- else if $values.exemptNamespaces }}{{ $expressions = append $expressions (merge (dict "values" $values.exemptNamespaces) .) }}{{ end -}}
{{- end -}}
{{- $expressions = concat $expressions $values.extraNamespaceSelectorExpressions -}}
{{- if $values.excludeReleaseNamespace -}}
{{- $expressions = append $expressions (dict "key" "kubernetes.io/metadata.name" "operator" "NotIn" "values" (list .root.Release.Namespace)) -}}
{{- end -}}
{{- if $expressions }}{{ toYaml (dict "matchExpressions" $expressions) }}{{ else }}{}{{ end -}}
{{- end -}}

{{/* The metadata.name of one webhook configuration in the shared file. */}}
{{- define "gmsa-webhooks.sharedConfigName" -}}
{{- (fromYaml (.root.Files.Get (printf "files/webhooks/%s.yaml" .fn))).metadata.name -}}
{{- end -}}

{{/* The name of one function's webhook in the shared file; the API server's admission metrics label it so. */}}
{{- define "gmsa-webhooks.webhookName" -}}
{{- (first (fromYaml (.root.Files.Get (printf "files/webhooks/%s.yaml" .fn))).webhooks).name -}}
{{- end -}}

{{/* The rules of a function's ClusterRole, from the shared file files/rbac/<fn>.yaml (also infra/deploy/rbac). */}}
{{- define "gmsa-webhooks.rbacRules" -}}
{{- range regexSplit "(?m)^---[ \t]*$" (.root.Files.Get (printf "files/rbac/%s.yaml" .fn)) -1 -}}
{{- $object := fromYaml . -}}
{{- if eq (get $object "kind") "ClusterRole" -}}
{{- toYaml $object.rules -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Refuses certificates.certReload.enabled false, the default of kubernetes-sigs/windows-gmsa's chart, with a
message: the schema alone could only say "value must be true". Reloading has no off switch here. */}}
{{- define "gmsa-webhooks.checkCertReload" -}}
{{- $reload := .Values.certificates.certReload | default dict -}}
{{- if and (hasKey $reload "enabled") (eq (toString $reload.enabled) "false") -}}
{{- fail "certificates.certReload.enabled: false is kubernetes-sigs/windows-gmsa's value (its chart's default), which this chart cannot honour: its Node server always reloads renewed certificate files, without a restart (docs/operations.md#certificate-reload). Remove certificates.certReload from your values" -}}
{{- end -}}
{{- end -}}

{{/* The generated CA and serving certificate: the existing Secret's, read back on upgrade (lookup), else new.
Returns YAML with caBundle, tlsCrt, tlsKey (base64). Names: both Services, short and fully qualified. */}}
{{- define "gmsa-webhooks.selfSigned" -}}
{{- $name := include "gmsa-webhooks.tlsSecretName" . -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- if and $existing (index ($existing.data | default dict) "ca.crt") (index $existing.data "tls.crt") (index $existing.data "tls.key") -}}
caBundle: {{ index $existing.data "ca.crt" }}
tlsCrt: {{ index $existing.data "tls.crt" }}
tlsKey: {{ index $existing.data "tls.key" }}
{{- else -}}
{{- $fullname := include "gmsa-webhooks.fullname" . -}}
{{- $names := list -}}
{{- range list "expand" "authorize" -}}
{{- $service := printf "%s-%s" $fullname . -}}
{{- $names = concat $names (list $service (printf "%s.%s" $service $.Release.Namespace) (printf "%s.%s.svc" $service $.Release.Namespace) (printf "%s.%s.svc.cluster.local" $service $.Release.Namespace)) -}}
{{- end -}}
{{- $days := int .Values.certificates.selfSigned.days -}}
{{- $ca := genCA (printf "%s-ca" $fullname) $days -}}
{{- $cert := genSignedCert (printf "%s-expand.%s.svc" $fullname .Release.Namespace) nil $names $days $ca -}}
caBundle: {{ $ca.Cert | b64enc }}
tlsCrt: {{ $cert.Cert | b64enc }}
tlsKey: {{ $cert.Key | b64enc }}
{{- end -}}
{{- end -}}

{{/* The image reference. windows-gmsa's image (kubernetes-sigs/windows-gmsa: sigwindowstools/k8s-gmsa-webhook,
registry.k8s.io/gmsa-webhook/k8s-gmsa-webhook, and mirrors of either) is refused: a reused windows-gmsa values file
names it, and it holds no Node server for the pods' command, so they would crash-loop. */}}
{{- define "gmsa-webhooks.image" -}}
{{- $repository := .Values.image.repository | required "image.repository: the image built by npm run image and pushed to your registry (no image is published)" -}}
{{- if regexMatch "(^|/)[a-z0-9._-]*k8s-gmsa-webhook$" $repository -}}
{{- fail (printf "image.repository: %s is kubernetes-sigs/windows-gmsa's webhook image (from its chart's values), which has no Node server for this chart's pods to start (node dist/node/server.mjs), so they crash-loop; set image.repository to this chart's gmsa-webhooks image, built with npm run image and pushed to your registry (docs/image.md), and drop windows-gmsa's image.tag (the default is the chart's appVersion)" $repository) -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* CALLER_AUTH and its settings for one function's container. Call with (dict "root" $ "fn" "expand"). */}}
{{- define "gmsa-webhooks.callerAuthEnv" -}}
{{- $auth := .root.Values.callerAuth -}}
- { name: CALLER_AUTH, value: {{ $auth.mode }} }
{{- if has $auth.mode (list "bearer" "path") }}
- name: {{ ternary "CALLER_AUTH_TOKENS" "CALLER_AUTH_PATH_SECRET" (eq $auth.mode "bearer") }}
  valueFrom:
    secretKeyRef: { name: {{ include "gmsa-webhooks.callerSecretName" .root }}, key: {{ .fn }} }
{{- else if eq $auth.mode "jwt" }}
- { name: CALLER_AUTH_JWT_ISSUER, value: {{ $auth.jwt.issuer | required "callerAuth.jwt.issuer is required with callerAuth.mode jwt" | quote }} }
- { name: CALLER_AUTH_JWT_AUDIENCE, value: {{ $auth.jwt.audience | required "callerAuth.jwt.audience is required with callerAuth.mode jwt" | quote }} }
{{- with $auth.jwt.subjects }}
- { name: CALLER_AUTH_JWT_SUBJECTS, value: {{ . | quote }} }
{{- end }}
{{- if eq (empty $auth.jwt.jwks) (empty $auth.jwt.jwksUrl) }}
{{- fail "callerAuth.jwt: set exactly one of jwks and jwksUrl" }}
{{- end }}
{{- with $auth.jwt.jwks }}
- { name: CALLER_AUTH_JWT_JWKS, value: {{ . | quote }} }
{{- end }}
{{- with $auth.jwt.jwksUrl }}
- { name: CALLER_AUTH_JWT_JWKS_URL, value: {{ . | quote }} }
{{- end }}
{{- else if eq $auth.mode "mtls" }}
- { name: CALLER_AUTH_CLIENT_CA_FILE, value: /client-ca/ca.crt }
{{- with $auth.mtls.clientNames }}
- { name: CALLER_AUTH_CLIENT_NAMES, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- end -}}

{{/* "true" when `object` (what `lookup` returned) exists in the cluster and this release does not own it, by the
rule Helm itself applies before it installs over an existing object: label app.kubernetes.io/managed-by=Helm and
annotations meta.helm.sh/release-name and meta.helm.sh/release-namespace naming this release. Such an object is left
to its owner instead of failing the install ("exists and cannot be imported into the current release"). `lookup`
finds nothing under `helm template` and client-side dry runs, so there every object counts as absent.
Call with (dict "root" $ "object" (lookup ...)). */}}
{{- define "gmsa-webhooks.foreign" -}}
{{- $object := .object | default dict -}}
{{- if $object -}}
{{- $labels := $object.metadata.labels | default dict -}}
{{- $annotations := $object.metadata.annotations | default dict -}}
{{- $ours := and (eq (get $labels "app.kubernetes.io/managed-by") "Helm") (eq (get $annotations "meta.helm.sh/release-name") .root.Release.Name) (eq (get $annotations "meta.helm.sh/release-namespace") .root.Release.Namespace) -}}
{{- if not $ours }}true{{ end -}}
{{- end -}}
{{- end -}}

{{/* The GMSACredentialSpec CRD's name (files/crd/). */}}
{{- define "gmsa-webhooks.crdName" -}}
{{- (.Files.Get "files/crd/gmsacredentialspecs.yaml" | fromYaml).metadata.name -}}
{{- end -}}

{{/* "true" when the cluster holds a GMSACredentialSpec CRD this release does not own (left alone). */}}
{{- define "gmsa-webhooks.foreignCrd" -}}
{{- include "gmsa-webhooks.foreign" (dict "root" . "object" (lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" (include "gmsa-webhooks.crdName" .))) -}}
{{- end -}}

{{/* "true" when the cluster holds a GMSACredentialSpec of this name that this release does not own (left alone).
Call with (dict "root" $ "name" "webapp01"); only once the cluster serves windows.k8s.io/v1. */}}
{{- define "gmsa-webhooks.foreignCredentialSpec" -}}
{{- include "gmsa-webhooks.foreign" (dict "root" .root "object" (lookup "windows.k8s.io/v1" "GMSACredentialSpec" "" .name)) -}}
{{- end -}}

{{/* The webhooks' timeoutSeconds: webhooks.timeoutSeconds, else the shared files' (files/webhooks/). */}}
{{- define "gmsa-webhooks.timeoutSeconds" -}}
{{- $timeout := .Values.webhooks.timeoutSeconds -}}
{{- if kindIs "invalid" $timeout -}}
{{- $timeout = (first (.Files.Get "files/webhooks/authorize.yaml" | fromYaml).webhooks).timeoutSeconds -}}
{{- end -}}
{{- $timeout -}}
{{- end -}}
