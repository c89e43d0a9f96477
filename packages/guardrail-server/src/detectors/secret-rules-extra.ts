/**
 * More secret rules: provider token formats that carry a fixed prefix (families from the gitleaks
 * rule set, https://github.com/gitleaks/gitleaks cmd/generate/config/rules, MIT License,
 * Copyright (c) 2019 Zachary Rice; the regular expressions are re-written for JavaScript, no
 * examples copied), vendor names for the keyword rule, database connection strings and
 * password assignments. See NOTICE.
 */
import { Buffer } from 'node:buffer';
import { isTrivialCredential, type SecretRule } from './secret-rule-types.js';

const hasDigitAndLetter = (v: string) => /\d/.test(v) && /[A-Za-z]/.test(v);

/** Provider tokens recognisable by their own prefix and shape. */
export const PROVIDER_PREFIX_RULES: readonly SecretRule[] = [
  { id: 'adobe-client-secret', re: /\bp8e-[A-Za-z0-9]{32}\b/g, minEntropy: 3, keywords: ['p8e-'] },
  { id: 'age-secret-key', re: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g, keywords: ['age-secret-key-'] },
  { id: 'airtable-pat', re: /\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b/g, keywords: ['pat'] },
  { id: 'alibaba-access-key-id', re: /\bLTAI[A-Za-z0-9]{20}\b/g, minEntropy: 3, keywords: ['ltai'] },
  { id: 'artifactory-token', re: /\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b/g, keywords: ['akcp', 'cmvmd'] },
  {
    id: 'authress-key',
    re: /\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}/g,
    keywords: ['.acc'],
  },
  { id: 'clickhouse-cloud-secret', re: /\b4b1d[A-Za-z0-9]{38}\b/g, minEntropy: 3.5, keywords: ['4b1d'] },
  { id: 'clojars-token', re: /\bCLOJARS_[A-Za-z0-9]{60}\b/gi, keywords: ['clojars_'] },
  { id: 'defined-networking-token', re: /\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}\b/g, keywords: ['dnkey-'] },
  { id: 'digitalocean-token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g, keywords: ['_v1_'] },
  {
    id: 'discord-bot-token',
    re: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/g,
    minEntropy: 3.5,
    check: hasDigitAndLetter,
  },
  { id: 'discord-webhook-url', re: /\bdiscord(?:app)?\.com\/api\/webhooks\/\d{17,20}\/[A-Za-z0-9_-]{60,68}/g, keywords: ['discord'] },
  { id: 'duffel-token', re: /\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}\b/g, keywords: ['duffel_'] },
  { id: 'dynatrace-token', re: /\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b/g, keywords: ['dt0c01.'] },
  { id: 'easypost-token', re: /\bEZ[AT]K[A-Za-z0-9]{54}\b/g, keywords: ['ezak', 'eztk'] },
  { id: 'flutterwave-key', re: /\bFLW(?:SECK|PUBK)(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?\b/g, keywords: ['flwseck', 'flwpubk'] },
  { id: 'frameio-token', re: /\bfio-u-[A-Za-z0-9_=-]{64}\b/g, keywords: ['fio-u-'] },
  { id: 'gocardless-token', re: /\blive_[A-Za-z0-9_=-]{40}\b/g, minEntropy: 3.5, check: hasDigitAndLetter, keywords: ['live_'] },
  { id: 'google-oauth-client-secret', re: /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g, keywords: ['gocspx-'] },
  { id: 'google-oauth-access-token', re: /\bya29\.[A-Za-z0-9_-]{30,}/g, minEntropy: 3.5, keywords: ['ya29.'] },
  { id: 'harness-token', re: /\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b/g, keywords: ['pat.', 'sat.'] },
  { id: 'lob-key', re: /\b(?:live|test)_(?:pub_)?[a-f0-9]{31,35}\b/g, keywords: ['live_', 'test_'], minEntropy: 3 },
  { id: 'mailgun-key', re: /\b(?:key|pubkey)-[a-f0-9]{32}\b/g, minEntropy: 3, keywords: ['key-'] },
  { id: 'mapbox-token', re: /\b[pst]k\.eyJ1[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/g, keywords: ['k.eyj1'] },
  { id: 'maxmind-license-key', re: /\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b/g, keywords: ['_mmk'] },
  {
    id: 'microsoft-teams-webhook',
    // The current host (<tenant>.webhook.office.com/webhookb2/…) and the retired one
    // (outlook.office.com/webhook/…): both URLs post to the channel with no other credential.
    re: /\bhttps:\/\/(?:[a-z0-9-]+\.webhook\.office\.com\/webhookb2|outlook\.office(?:365)?\.com\/webhook)\/[a-z0-9-]{36}@[a-z0-9-]{36}\/IncomingWebhook\/[a-z0-9]{32}\/[a-z0-9-]{36}/gi,
    keywords: ['webhook.office.com', 'outlook.office'],
  },
  { id: 'new-relic-key', re: /\bNR(?:AK|JS|II)-[A-Za-z0-9-]{19,32}\b/g, keywords: ['nrak-', 'nrjs-', 'nrii-'] },
  { id: 'nuget-api-key', re: /\boy2[a-z0-9]{43}\b/g, minEntropy: 3.5, keywords: ['oy2'] },
  {
    id: 'nuget-config-password',
    re: /<add\s+key="(?:ClearText)?Password"\s+value="([^"]{8,})"/gi,
    group: 1,
    keywords: ['password'],
    check: (v) => !isTrivialCredential(v),
  },
  { id: 'octopus-deploy-key', re: /\bAPI-[A-Z0-9]{26}\b/g, minEntropy: 3, keywords: ['api-'], check: hasDigitAndLetter },
  { id: 'perplexity-api-key', re: /\bpplx-[A-Za-z0-9]{48}\b/g, keywords: ['pplx-'] },
  { id: 'planetscale-token', re: /\bpscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}/g, keywords: ['pscale_'] },
  { id: 'postman-api-key', re: /\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b/g, keywords: ['pmak-'] },
  { id: 'prefect-api-key', re: /\bpnu_[A-Za-z0-9]{36}\b/g, keywords: ['pnu_'] },
  { id: 'pulumi-token', re: /\bpul-[a-f0-9]{40}\b/g, keywords: ['pul-'] },
  { id: 'readme-api-key', re: /\brdme_[a-z0-9]{70}\b/g, keywords: ['rdme_'] },
  { id: 'rubygems-api-key', re: /\brubygems_[a-f0-9]{48}\b/g, keywords: ['rubygems_'] },
  { id: 'sendinblue-api-key', re: /\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b/g, keywords: ['xkeysib-'] },
  { id: 'settlemint-token', re: /\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b/g, keywords: ['sm_'] },
  { id: 'shippo-token', re: /\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b/g, keywords: ['shippo_'] },
  { id: 'telegram-bot-token', re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g, keywords: [':aa'] },
  { id: 'twitter-bearer-token', re: /\bA{22}[A-Za-z0-9%]{80,100}/g, keywords: ['aaaaaaaaaaaaaaaaaaaaaa'] },
  {
    id: 'yandex-key',
    re: /\b(?:AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2})(?![\w-])/g,
    minEntropy: 3.5,
    check: hasDigitAndLetter,
    keywords: ['aqvn', 'yc', 't1.'],
  },
  {
    id: 'azure-sas-token',
    re: /[?&]sig=([A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})/g,
    group: 1,
    keywords: ['sig='],
    check: (v) => /(?:%2B|%2F|%3D|[+/])/i.test(v) || v.length >= 43,
  },
  {
    id: 'azure-connection-string',
    re: /\b(?:SharedAccessKey|AccountKey|SharedAccessSignature)\s{0,3}=\s{0,3}([A-Za-z0-9+/%]{30,}={0,2})/g,
    group: 1,
    minEntropy: 3.5,
    keywords: ['sharedaccess', 'accountkey'],
  },
  {
    id: 'password-hash',
    re: /\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}|\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}|\$[56]\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}|\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}|\$krb5asrep\$23\$[^:\s]{1,200}:[a-f0-9]{32}\$[a-f0-9]{64,}/g,
    keywords: ['$2', '$1$', '$5$', '$6$', '$8$', '$9$', '$krb5'],
  },
  {
    id: 'aws-session-token',
    re: /\b(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{100,}/g,
    keywords: ['fwogzxivyxdze', 'iqojb3jpz2lux2vj'],
  },
  { id: 'aws-mws-token', re: /\bamzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, keywords: ['amzn.mws.'] },
  { id: 'aws-appsync-key', re: /\bda2-[a-z0-9]{26}\b/g, minEntropy: 3, keywords: ['da2-'] },
  { id: 'bitbucket-app-password', re: /\bATBB[A-Za-z0-9_=.-]{28,}/g, keywords: ['atbb'] },
  { id: 'crates-io-token', re: /\bcio[A-Za-z0-9]{32}\b/g, minEntropy: 3.5, check: hasDigitAndLetter, keywords: ['cio'] },
  { id: 'dependency-track-key', re: /\bodt_[A-Za-z0-9]{32,}\b/g, keywords: ['odt_'] },
  { id: 'doppler-token-any', re: /\bdp\.(?:ct|st|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}/g, keywords: ['dp.'] },
  { id: 'dropbox-token', re: /\bsl\.[A-Za-z0-9_-]{130,}/g, keywords: ['sl.'] },
  { id: 'firecrawl-key', re: /\bfc-[a-f0-9]{32}\b/g, keywords: ['fc-'] },
  { id: 'gitlab-runner-token', re: /\bGR1348941[A-Za-z0-9_-]{20}\b/g, check: (v) => /[A-Za-z]/.test(v.slice(9)), keywords: ['gr1348941'] },
  { id: 'jina-key', re: /\bjina_[A-Za-z0-9_-]{60}\b/g, keywords: ['jina_'] },
  {
    id: 'new-relic-key-more',
    re: /\bNR(?:AA|RA|IQ|AL|PX)-[A-Za-z0-9-]{27,40}\b|\b[a-f0-9]{36}NRAL\b/g,
    keywords: ['nraa-', 'nrra-', 'nriq-', 'nral', 'nrpx-'],
  },
  {
    id: 'base64-private-key',
    re: /\bLS0tLS1CRUdJT[A-Za-z0-9+/]{60,}={0,2}/g,
    keywords: ['ls0tls1crudjt'],
    check: (v) => /PRIVATE KEY/.test(Buffer.from(v.slice(0, 120), 'base64').toString('latin1')),
  },
  { id: 'salesforce-token', re: /\b00[A-Za-z0-9]{13}![A-Za-z0-9_.]{80,100}/g, keywords: ['00'] },
  { id: 'segment-token', re: /\bsgp_[A-Za-z0-9]{64}\b/g, keywords: ['sgp_'] },
  { id: 'sonarqube-token', re: /\bsq[pau]_[a-f0-9]{40}\b/g, keywords: ['sqp_', 'sqa_', 'squ_'] },
  { id: 'stackhawk-key', re: /\bhawk\.[A-Za-z0-9_-]{20}\.[A-Za-z0-9_-]{20}\b/g, keywords: ['hawk.'] },
  { id: 'tavily-key', re: /\btvly-(?:dev-)?[A-Za-z0-9]{32}\b/g, keywords: ['tvly-'] },
  { id: 'adafruit-io-key', re: /\baio_[A-Za-z0-9]{28}\b/g, minEntropy: 3, keywords: ['aio_'] },
  {
    id: 'netrc-password',
    re: /\bmachine\s+\S{1,200}\s+login\s+\S{1,200}\s+password\s+(\S{4,200})/g,
    group: 1,
    keywords: ['machine'],
    check: (v) => !isTrivialCredential(v),
  },
  {
    id: 'psexec-password',
    re: /\bpsexec(?:64)?(?:\.exe)?\b[^\n]{0,200}?\s-p\s+["']?([^\s"']{3,200})/gi,
    group: 1,
    keywords: ['psexec'],
    check: (v) => !isTrivialCredential(v),
  },
  {
    id: 'powershell-password-arg',
    re: /\s-Password\s+["']([^"'\n]{4,200})["']/gi,
    group: 1,
    keywords: ['-password'],
    check: (v) => !isTrivialCredential(v),
  },
  // .NET credentials written as literals, by the constructors' documented signatures
  // (learn.microsoft.com): NetworkCredential(userName, password[, domain]) and
  // DirectoryEntry(path, username, password[, authenticationType]).
  {
    id: 'dotnet-network-credential',
    re: /\bNetworkCredential\s{0,3}\(\s{0,3}@?"[^"\n]{0,200}"\s{0,3},\s{0,3}@?"([^"\n]{4,200})"/g,
    group: 1,
    keywords: ['networkcredential'],
    check: (v) => passwordLiteralOk(v),
  },
  {
    id: 'dotnet-directory-entry',
    re: /\bDirectoryEntry\s{0,3}\(\s{0,3}@?"[^"\n]{0,300}"\s{0,3},\s{0,3}@?"[^"\n]{0,200}"\s{0,3},\s{0,3}@?"([^"\n]{4,200})"/g,
    group: 1,
    keywords: ['directoryentry'],
    check: (v) => passwordLiteralOk(v),
  },
  {
    id: 'wireguard-key',
    re: /\b(?:PrivateKey|PresharedKey)\s{0,3}=\s{0,3}([A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)/g,
    group: 1,
    keywords: ['privatekey', 'presharedkey'],
  },
  { id: 'jenkins-crumb', re: /\bJenkins-Crumb\s{0,3}[:=]\s{0,3}([a-f0-9]{32,64})\b/gi, group: 1, keywords: ['jenkins-crumb'] },
  {
    id: 'kubernetes-bootstrap-token',
    re: /\b(?:kubeadm|bootstrap|--token)[^\n]{0,40}?\b([a-z0-9]{6}\.[a-z0-9]{16})\b/gi,
    group: 1,
    keywords: ['kubeadm', 'bootstrap', '--token'],
    check: hasDigitAndLetter,
  },
  { id: 'teamcity-token', re: /\beyJ0eXAiOiAiVENWMiJ9\.[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]{10,})?/g, keywords: ['eyj0exaioiaivenwmij9'] },
  { id: 'twitch-stream-key', re: /\blive_\d{6,12}_[A-Za-z0-9]{30}\b/g, keywords: ['live_'] },
  {
    id: 'azure-devops-pat',
    re: /\b(?:azure|devops|ado|vsts|az)[\w.-]{0,30}(?:pat|token|key)[\w.-]{0,10}["'`]?\s{0,3}[:=]\s{0,3}["'`]?([a-z2-7]{52})\b/gi,
    group: 1,
    minEntropy: 3.5,
    keywords: ['azure', 'devops', 'ado', 'vsts', 'az'],
  },
  {
    id: 'jenkins-setup-password',
    re: /use the following password to proceed to installation:\s{1,20}([a-f0-9]{32})\b/gi,
    group: 1,
    keywords: ['following password'],
  },
  { id: 'vault-unseal-key', re: /\bUnseal Key(?: \d{1,2})?:\s{0,3}([A-Za-z0-9+/]{43,44}={0,2})/g, group: 1, keywords: ['unseal key'] },
  {
    id: 'gradle-credentials',
    re: /\bcredentials\s{0,3}\{[^}]{0,200}?\bpassword\s{0,3}=?\s{0,3}["']([^"'\n$]{4,100})["']/g,
    group: 1,
    keywords: ['credentials'],
    check: (v) => !isTrivialCredential(v),
  },
  {
    // Gradle Plugin Portal publishing keys (gradle.properties): the property names are Gradle's own.
    id: 'gradle-publish-key',
    re: /\bgradle\.publish\.(?:key|secret)\s{0,3}[=:]\s{0,3}["']?([A-Za-z0-9]{24,64})\b/g,
    group: 1,
    minEntropy: 3.5,
    keywords: ['gradle.publish.'],
  },
  {
    // A PostgreSQL password file line (~/.pgpass): host:port:database:user:password, each field
    // a name or `*`, the port digits or `*`. The password is the rest of the line.
    id: 'pgpass-line',
    re: /^[ \t]*[\w.*-]{1,253}:(?:\d{1,5}|\*):[\w.*-]{1,63}:[\w.*@-]{1,63}:([^\s:]{6,100})[ \t]*$/gm,
    group: 1,
    minEntropy: 2.5,
    keywords: [':5432:', ':5433:', ':*:', 'pgpass'],
    check: (v) => !isTrivialCredential(v) && /\d|[^A-Za-z]/.test(v),
  },
  {
    // A bearer credential written as a string literal in code ("Bearer " + token later sent in an
    // Authorization header): the literal itself holds the token.
    id: 'bearer-literal',
    re: /["'`]Bearer[ \t]{1,3}([A-Za-z0-9._~+/=-]{20,500})["'`]/g,
    group: 1,
    minEntropy: 3.5,
    keywords: ['bearer'],
    check: (v) => !isTrivialCredential(v) && /[A-Z]/.test(v) && /[a-z]/.test(v),
  },
  {
    // Twilio's Account SID and Auth Token joined as HTTP basic credentials (`AC…:…`).
    id: 'twilio-sid-token-pair',
    re: /\bAC[0-9a-f]{32}:([0-9a-f]{32})\b/g,
    group: 1,
    minEntropy: 3,
    keywords: ['ac'],
  },
  {
    id: 'kubernetes-secret-data',
    re: /\bkind:\s{0,3}["']?Secret["']?[^]{0,300}?\bdata:\s{0,3}\n\s{1,12}[\w.-]{1,64}:\s{0,3}["']?([A-Za-z0-9+/]{12,}={0,2})/g,
    group: 1,
    keywords: ['secret'],
    check: (v) => !isTrivialCredential(v),
  },
];

/**
 * Vendors whose keys have no prefix: a vendor name in the variable plus a token-shaped value
 * (gitleaks' keyword rules). Used by the `vendor-key-assignment` rule.
 */
export const MORE_VENDORS: readonly string[] = [
  'adafruit',
  'adobe',
  'alibaba',
  'beamer',
  'bittrex',
  'codecov',
  'cohere',
  'co_api_key',
  'coinbase',
  'confluent',
  'discord',
  'droneci',
  'etsy',
  'fastly',
  'finicity',
  'finnhub',
  'flickr',
  'freshbooks',
  'gitter',
  'gocardless',
  'intercom',
  'jfrog',
  'artifactory',
  'kraken',
  'kucoin',
  'linkedin',
  'looker',
  'mattermost',
  'meraki',
  'nytimes',
  'privateai',
  'private_ai',
  'sendbird',
  'shippo',
  'squarespace',
  'telegram',
  'trello',
  'twitch',
  'twitter',
  'yandex',
  'openai',
  'anthropic',
  'mistral',
  'gemini',
  'replicate',
  'pinecone',
  'deepseek',
  'together',
  'fireworks',
  'elevenlabs',
  'azure',
  'firebase',
  'supabase',
  'auth0',
  'okta',
  'paypal',
  'braintree',
  'razorpay',
  'paystack',
  'blynk',
  'codeclimate',
  'cc_test_reporter',
  'nasa',
  'kagi',
  'particle',
  'thingsboard',
  'sauce',
  'segment',
  'postmark',
  'gitalk',
  'teamcity',
  'truenas',
  'hashicorp',
  'unseal',
  'github_secret',
  'github_client_secret',
  'gh_secret',
  'django_secret',
  'jwt_secret',
  'braintrust',
  'cloudinary',
  'aiven',
  'smartsheet',
  'duo',
  'elastic',
  'vonage',
  'nexmo',
  'mux',
  'contentstack',
];

const CONN_CONTEXT =
  /(?:\b(?:endpoint|server|data source|host|hostname|address|addr|database|initial catalog|uid|user id|user|username|dsn|provider|driver)\s{0,3}=|jdbc:|odbc:)/i;

const SECRET_NAME =
  '[\\w.-]{0,30}(?:password|passwd|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|client[_.-]?secret|credentials?)[\\w.-]{0,30}';
const NOT_SECRET_NAME =
  /(?:label|hint|prompt|placeholder|regex|pattern|policy|field|length|len|min|max|reset|url|uri|path|file|message|msg|text|title|error|id|type|name|env|var|strength|rule|validation|help|description|mode|format|hash|salt|selector|column|endpoint|expir\w*|ttl|timeout|count|enabled)$/i;

function credentialValueOk(v: string): boolean {
  return (
    !isTrivialCredential(v) &&
    /[A-Za-z]/.test(v) &&
    (/\d/.test(v) || /[^A-Za-z0-9]/.test(v) || v.length >= 12) &&
    !/^(?:https?:|\/|\.\/|[\w.]+\(|[\w-]+\.(?:json|ya?ml|txt|pem|key|env)$)/i.test(v) &&
    !/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]+$/.test(v) && // a CONSTANT_NAME (random upper-case keys have no underscores)
    !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(v) && // obj.field, a reference
    !/^(?:true|false|null|none|nil|undefined|required|optional|string|secret|hidden)$/i.test(v) &&
    !/(?:fake|dummy|sample|example|placeholder|changeme|replace|redacted)/i.test(v)
  );
}

/**
 * A password literal as people write one: a letter, plus a digit or symbol (or 10+ letters), at
 * most three words, and not a reference, path, constant name, camelCase identifier or stand-in.
 */
export function passwordLiteralOk(v: string): boolean {
  return (
    credentialValueOk(v) &&
    (!v.includes(' ') || /[^A-Za-z ]/.test(v)) &&
    v.split(' ').length <= 3 &&
    (/[^A-Za-z]/.test(v) || v.length >= 10) &&
    !/^[a-z]+(?:[A-Z][a-z]+)+$/.test(v)
  );
}

// A name followed by an assignment ("key=", "token: ", "secret is"): rarer in text than the bare
// words, so rules keyed on them run on fewer inputs.
function ASSIGNED_WORDS(words: readonly string[]): string[] {
  return words.flatMap((w) => [`${w}=`, `${w} =`, `${w}:`, `${w} :`, `${w}"`, `${w}'`, `${w}\``, `${w} is `]);
}

/** Connection strings and password assignments. */
export const CREDENTIAL_RULES: readonly SecretRule[] = [
  {
    // A secret-named XML element: <password>…</password>, <aws_secret_key>…</aws_secret_key>.
    id: 'xml-secret-element',
    nameKeyed: true,
    re: new RegExp(`<(${SECRET_NAME})>([^<>\\s]{6,200})</\\1>`, 'gi'),
    group: 2,
    minEntropy: 2.5,
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'credential'],
    check: credentialValueOk,
    context: (text, start) => !NOT_SECRET_NAME.test(/<([\w.-]+)>$/.exec(text.slice(Math.max(0, start - 80), start))?.[1] ?? ''),
  },
  {
    // Docker config: "auth": "<base64 of user:password>".
    id: 'docker-config-auth',
    re: /"auth"\s{0,3}:\s{0,3}"([A-Za-z0-9+/]{8,400}={0,2})"/g,
    group: 1,
    keywords: ['"auth"'],
    check: (v) => {
      const d = Buffer.from(v, 'base64').toString('utf8');
      const i = d.indexOf(':');
      return i > 0 && /^[\x20-\x7e]+\n?$/.test(d) && !isTrivialCredential(d.slice(i + 1).trim());
    },
  },
  {
    // A whole config line `password: tiger42` / `DB_PASSWORD=tiger42` (.env, .ini, YAML,
    // properties), unquoted: the value runs to the end of the line. Up to 64 name characters after
    // the password word (bounded, as in password-assignment).
    id: 'password-line',
    nameKeyed: true,
    re: /^[ \t]*(?:-[ \t]+|export[ \t]+)?([\w.-]{0,40}(?:password|passwd|pwd|passphrase|(?<![a-z])pass(?=[ \t]*[:=])|[_.-]pw(?=[ \t]*[:=]))[\w.-]{0,64})[ \t]*[:=][ \t]*([^\s"'`#;,{}()<>[\]]{6,100})[ \t]*\r?$/gim,
    group: 2,
    minEntropy: 2.5,
    keywords: ['pass', 'pwd', '_pw', '.pw', '-pw'],
    check: credentialValueOk,
    context: (text, start) => {
      const line = text.slice(text.lastIndexOf('\n', start - 1) + 1, start);
      const name = /([\w.-]+)[ \t]*[:=][ \t]*$/.exec(line)?.[1] ?? '';
      return !NOT_SECRET_NAME.test(name) && !/pass(?:port|age|enger|ive|ing|thr)/i.test(name);
    },
  },
  {
    // ADO.NET / ODBC / JDBC key=value connection strings: `Server=…;User Id=…;Password=…;`,
    // `jdbc:sqlserver://h;user=sa;password=…`, `jdbc:mysql://h/db?user=u&password=…`.
    id: 'connection-string-password',
    re: /(?:^|[;?&\s"'])(?:password|pwd|passwd|pass|secret)\s{0,3}=\s{0,3}(\{[^}\n]{4,128}\}|"[^"\n]{4,128}"|'[^'\n]{4,128}'|[^;&\s"'<>]{4,128})/gi,
    group: 1,
    keywords: ['pass', 'pwd', 'secret'],
    check: (v) => {
      const bare = v.replace(/^["'{]|["'}]$/g, '');
      return !isTrivialCredential(bare) && !/^[$%@]/.test(bare) && /[A-Za-z0-9]/.test(bare);
    },
    context: (text, start) => CONN_CONTEXT.test(text.slice(Math.max(0, start - 300), start)),
  },
  // A password given on a command line: `mysql -pSECRET` (attached, per the MySQL client's manual),
  // `sshpass -p SECRET`, `docker login -p SECRET`, and `--password SECRET` / `--password=SECRET`.
  {
    id: 'cli-password-flag',
    re: /\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,120}?\s-p([^\s"'$-][^\s"']{3,100})/gi,
    group: 1,
    keywords: ['mysql', 'mariadb'],
    check: passwordLiteralOk,
  },
  {
    id: 'cli-password-flag',
    re: /\b(?:sshpass|docker\s+login|podman\s+login|helm\s+registry\s+login|smbclient|xfreerdp|rdesktop)\b[^\n|;&]{0,120}?\s(?:-p|--password)(?:\s{1,3}|=)["']?([^\s"'$][^\s"']{3,100})/gi,
    group: 1,
    keywords: ['sshpass', 'login', 'smbclient', 'rdp', 'rdesktop'],
    check: passwordLiteralOk,
  },
  {
    id: 'cli-password-flag',
    re: /\s--password(?:\s{1,3}|=)["']?([^\s"'$<{-][^\s"']{3,100})/gi,
    group: 1,
    keywords: ['--password'],
    check: passwordLiteralOk,
  },
  {
    // A quoted literal assigned to a password-named variable. People choose passwords, so their
    // entropy is low; instead of an entropy floor the literal must look chosen, not referenced or
    // described (passwordLiteralOk). The name may run on for 64 characters after the password word
    // (`password_for_the_production_database`; 20 let such values through): still a bounded
    // repetition, so the cost per occurrence of the word stays constant (linear scan).
    id: 'password-assignment',
    nameKeyed: true,
    minEntropy: 2.5,
    re: /((?:password|passwd|passphrase|pwd|pass(?!port|age|enger|ive|ing|thr|ed\b|es\b)|(?<=[_.-])pw(?=["'`]?\s{0,3}[:=]))[\w.-]{0,64})["'`]?\s{0,3}(?::{1,3}=|=>|==|=|:)\s{0,3}@?(["'`])([^"'`\n]{6,100})\2/gi,
    group: 3,
    keywords: ['pass', 'pwd', '_pw', '.pw', '-pw'],
    check: passwordLiteralOk,
    context: (text, start) => {
      const name =
        /[\w.-]{0,40}$/.exec(
          text.slice(Math.max(0, start - 80), start).replace(/["'`]?\s{0,3}(?::{1,3}=|=>|==|=|:)\s{0,3}@?["'`]$/, ''),
        )?.[0] ?? '';
      return !NOT_SECRET_NAME.test(name) && !/(?:input|confirm|digest)$/i.test(name);
    },
  },
];

/**
 * Generic name rules: listed after every provider rule so that, where both match one value, the
 * provider's rule id is the one reported.
 */
export const GENERIC_NAME_RULES: readonly SecretRule[] = [
  {
    // A bare `key`/`token`/`secret` name (log lines "Using Key=…", YAML "key: …", prose "your key
    // is …") holding a long random value: both letters and digits, 20+ characters, 3.5+ bits of
    // entropy per character. Compound names (`public_key`, `cache_key`) are the generic rule's.
    id: 'generic-key-value',
    nameKeyed: true,
    re: /(?<![\w.-])(?:key|apikey|api[ _-]key|token|access[ _-]?token|secret|auth[ _-]?token)["'`]?\s{0,3}(?:=|:|\s+is\s+)\s{0,3}["'`]?([A-Za-z0-9_/+=~.-]{20,400})(?![\w/+=~.-])/gi,
    group: 1,
    minEntropy: 3.5,
    keywords: ASSIGNED_WORDS(['key', 'token', 'secret']),
    check: (v) => /\d/.test(v) && /[A-Za-z]/.test(v) && credentialValueOk(v) && !/^[A-Za-z_$][\w$]*(?:[./][A-Za-z_$][\w$-]*)+$/.test(v),
  },
  {
    // A camelCase variable named for a credential (`stripeKey := "…"`, `const apiToken = '…'`):
    // case-sensitive, so "monkey" or "turkey" never match.
    id: 'camelcase-secret-assignment',
    nameKeyed: true,
    re: /(?<=[a-z0-9])(?:Key|Token|Secret|Password|Passwd|Pwd|Credentials?)\s{0,3}(?::=|=|:)\s{0,3}["'`]([A-Za-z0-9_/+=~.!@#%^&*-]{16,200})["'`]/g,
    group: 1,
    minEntropy: 3.5,
    keywords: ASSIGNED_WORDS(['key', 'token', 'secret', 'password', 'passwd', 'pwd', 'credential', 'credentials']),
    check: (v) => /\d/.test(v) && /[A-Za-z]/.test(v) && credentialValueOk(v),
    context: (text, start) => {
      const name = /([A-Za-z0-9]+)\s{0,3}(?::=|=|:)\s{0,3}["'`]$/.exec(text.slice(Math.max(0, start - 80), start))?.[1] ?? '';
      return (
        /^[a-z]/.test(name) &&
        !/^(?:public|publishable|cache|sort|primary|foreign|partition|row|idempotency|i18n|translation|storage|route|query|lookup|map|react|dedupe|next|prev|page|cursor)/i.test(
          name,
        )
      );
    },
  },
];
