/**
 * Secret-detection rules. Provider token formats follow the public rule sets of gitleaks
 * (https://github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT License, Copyright (c) 2019
 * Zachary Rice) and secretlint (https://github.com/secretlint/secretlint, rule-preset-recommend,
 * MIT License, Copyright (c) 2020 azu): the regular expressions are re-written for JavaScript
 * (no inline flags, bounded repetition) rather than copied. See NOTICE in this package.
 *
 * `group` names the capture group that holds the secret value (0 = the whole match);
 * `minEntropy` is a Shannon-entropy floor (bits per character) on that value.
 */

import { CREDENTIAL_RULES, GENERIC_NAME_RULES, MORE_VENDORS, PROVIDER_PREFIX_RULES } from './secret-rules-extra.js';
import { PREFIXED_TOKEN_RULES } from './secret-rules-prefixed.js';
import { isTrivialCredential, type SecretRule } from './secret-rule-types.js';

export { isTrivialCredential, type SecretRule } from './secret-rule-types.js';

const B = '(?:^|[^A-Za-z0-9_])'; // a left boundary that also works before non-word characters
const E = '(?=$|[^A-Za-z0-9_])';
const Q = `["'\`]?`;
const ASSIGN = `${Q}\\s{0,3}(?::{1,3}=|\\?=|=>|=|:|,|\\s)\\s{0,3}${Q}`;
// AWS documents AKIAIOSFODNN7EXAMPLE-style keys as examples.
const notAwsExample = (v: string) => !v.includes('EXAMPLE');
// Browser API keys published in Firebase's Android SDK samples and tests: public by design (the
// list is gitleaks' gcp-api-key allowlist, MIT). Hashed? No: they are public, and few.
const PUBLIC_GCP_EXAMPLE_KEYS = new Set([
  'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
  'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
  'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
  'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
  'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
  'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
  'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
  'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
  'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
  'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
  'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
  'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
  'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
  'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
  'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
  'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
]);
const hasDigitAndLetter = (v: string) => /\d/.test(v) && /[A-Za-z]/.test(v);

export const SECRET_RULES: readonly SecretRule[] = [
  ...PROVIDER_PREFIX_RULES,
  ...PREFIXED_TOKEN_RULES,
  ...CREDENTIAL_RULES,
  {
    id: 'private-key',
    re: /-----BEGIN[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\s|\\n){0,4}((?:[A-Za-z0-9+/=:-]|\s|\\n){64,4096})/g,
    group: 1,
    keywords: ['private key'],
    check: (v) => /[A-Za-z0-9+/]{40}/.test(v.replace(/\s|\\n/g, '')),
  },
  { id: 'putty-private-key', re: /PuTTY-User-Key-File-\d: /g, keywords: ['putty'] },
  {
    id: 'aws-access-key',
    re: new RegExp(`${B}((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})${E}`, 'g'),
    group: 1,
    keywords: ['a3t', 'akia', 'asia', 'abia', 'acca'],
    check: notAwsExample,
  },
  {
    id: 'aws-secret-key',
    re: new RegExp(`aws[\\w.-]{0,20}(?:secret|key)[\\w.-]{0,20}${ASSIGN}([A-Za-z0-9/+=]{40})${E}`, 'gi'),
    group: 1,
    minEntropy: 3.5,
    keywords: ['aws'],
  },
  { id: 'aws-bedrock-api-key', re: /\bABSK[A-Za-z0-9+/]{109,269}={0,2}/g, keywords: ['absk'], check: notAwsExample },
  { id: 'gcp-service-account', re: /"type"\s{0,3}:\s{0,3}"service_account"/g, keywords: ['service_account'] },
  {
    id: 'gcp-api-key',
    re: new RegExp(`${B}(AIza[\\w-]{35})${E}`, 'g'),
    group: 1,
    minEntropy: 3.5,
    keywords: ['aiza'],
    check: (v) => !PUBLIC_GCP_EXAMPLE_KEYS.has(v),
  },
  {
    id: 'azure-ad-client-secret',
    re: /(?:^|[\\'"`\s>=:(,])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?=$|[\\'"`\s<),])/g,
    group: 1,
    keywords: ['q~'],
  },
  { id: 'azure-storage-key', re: /AccountKey=([A-Za-z0-9+/]{86}==)/g, group: 1, keywords: ['accountkey'] },
  // A storage account key is 64 random bytes in base64 (86 characters and "=="); named "account
  // key"/"storage key" anywhere in the 200 characters before it (YAML, XML, JSON, CLI flags).
  {
    id: 'azure-storage-key',
    re: /(?<![A-Za-z0-9+/])([A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])/g,
    group: 1,
    keywords: ['accountkey', 'account_key', 'account-key', 'storagekey', 'storage_key', 'storage-key', 'account key', 'storage key'],
    minEntropy: 4.5,
    context: (text, start) => /(?:account|storage)[ _-]?key/i.test(text.slice(Math.max(0, start - 200), start)),
  },
  {
    id: 'github-token',
    re: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g,
    minEntropy: 3,
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
  },
  { id: 'github-fine-grained-pat', re: /\bgithub_pat_[A-Za-z0-9_]{60,255}\b/g, minEntropy: 3, keywords: ['github_pat_'] },
  { id: 'github-app-token', re: /\bghs_\d+_eyJ[\w.-]{20,}/g, keywords: ['ghs_'] },
  {
    id: 'gitlab-token',
    re: /\b(?:glpat|gldt|glrt|glptt|glsoat|glffct|glcbt|gloas|glimt|glagent|glft)-[\w-]{20,}/g,
    minEntropy: 3,
    keywords: ['gl'],
  },
  { id: 'slack-bot-token', re: /\bxoxb-\d{8,13}-(?:\d{10,13}[A-Za-z0-9-]*|[A-Za-z0-9]{18,26})/g, keywords: ['xoxb-'] },
  { id: 'slack-user-token', re: /\bxox[pe](?:-\d{10,13}){3}-[A-Za-z0-9-]{28,34}/g, keywords: ['xoxp-', 'xoxe-'] },
  { id: 'slack-legacy-token', re: /\bxox[os]-\d+-\d+-\d+-[a-fA-F\d]+/g, keywords: ['xoxo-', 'xoxs-'] },
  { id: 'slack-legacy-workspace-token', re: /\bxox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}\b/g, keywords: ['xoxa-', 'xoxr-'] },
  { id: 'slack-generic-token', re: /\bxox[bpo]-\d{8,14}-\d{8,14}(?:-[A-Za-z0-9]+)?/g, keywords: ['xox'] },
  { id: 'slack-config-token', re: /\bxoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,200}/g, keywords: ['xoxe'] },
  { id: 'slack-app-token', re: /\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+/gi, keywords: ['xapp-'] },
  {
    id: 'slack-webhook-url',
    re: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
    keywords: ['hooks.slack.com'],
  },
  { id: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{24,99}(?![\w-])/g, keywords: ['sk_', 'rk_'] },
  {
    id: 'openai-api-key',
    re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}/g,
    keywords: ['t3blbkfj'],
  },
  {
    id: 'openai-project-key',
    re: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/g,
    minEntropy: 3.5,
    keywords: ['sk-'],
    check: (v) => !/abcdefgh|abdcefgh/i.test(v),
  },
  { id: 'anthropic-api-key', re: /\bsk-ant-(?:api\d\d|admin\d\d)-[\w-]{93}AA\b/g, keywords: ['sk-ant-'] },
  { id: 'groq-api-key', re: /\bgsk_[A-Za-z0-9]{52}\b/g, keywords: ['gsk_'] },
  { id: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, minEntropy: 3, keywords: ['npm_'] },
  { id: 'npmrc-auth', re: /(?:^|[\s:])_auth(?:Token)?\s{0,3}=\s{0,3}["']?([^\s"'$()]{8,})(?![\w(])/g, group: 1, keywords: ['_auth'] },
  { id: 'twilio-api-key', re: /\bSK[0-9a-fA-F]{32}\b/g, minEntropy: 3, keywords: ['sk'] },
  { id: 'sendgrid-api-key', re: /\bSG\.[\w-]{16,32}\.[\w-]{16,64}\b/g, keywords: ['sg.'] },
  { id: 'jwt', re: /\bey[A-Za-z0-9]{10,}\.ey[A-Za-z0-9/\\_-]{10,}\.(?:[A-Za-z0-9/\\_-]{10,}={0,2})?/g, keywords: ['ey'] },
  {
    id: 'huggingface-token',
    re: new RegExp(`${B}((?:hf_|api_org_)[A-Za-z]{34})${E}`, 'g'),
    group: 1,
    minEntropy: 3,
    keywords: ['hf_', 'api_org_'],
  },
  { id: 'huggingface-token-new', re: /\bhf_[A-Za-z0-9]{30,40}\b/g, minEntropy: 3.5, keywords: ['hf_'] },
  { id: 'databricks-token', re: /\bdapi[a-f0-9A-F]{32}(?:-\d)?\b/g, keywords: ['dapi'] },
  { id: 'doppler-token', re: /\bdp\.pt\.[a-z0-9]{43}\b/gi, keywords: ['dp.pt.'] },
  { id: 'figma-token', re: /\bfigd_[\w-]{40,}/g, keywords: ['figd_'] },
  { id: 'linear-api-key', re: /\blin_api_[A-Za-z0-9]{40,}\b/g, keywords: ['lin_api_'] },
  { id: 'notion-token', re: /\b(?:ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3}|secret_[A-Za-z0-9]{43})\b/g, keywords: ['ntn_', 'secret_'] },
  { id: 'shopify-token', re: /\bshp(?:at|ca|pa|ss)_[A-Za-z0-9]{32}\b/g, keywords: ['shp'] },
  { id: 'vercel-token', re: /\b(?:vercel|vc[pkrai])_[A-Za-z0-9]{24,}\b/gi, keywords: ['vercel', 'vc'] },
  {
    id: 'cloudflare-token',
    re: /cloudflare[\w.-]{0,20}(?:key|token|secret)[\w.-]{0,20}["'`]?\s{0,3}[:=]\s{0,3}["'`]?([A-Za-z0-9_-]{37,40})\b/gi,
    group: 1,
    keywords: ['cloudflare'],
  },
  { id: 'tailscale-key', re: /(?<![a-z])tskey-[a-z]{0,12}-?[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}/g, keywords: ['tskey-'] },
  {
    id: 'vault-token',
    re: /\b(?:hvs|hvb|hvr)\.[\w-]{90,}\b|\bs\.[A-Za-z0-9]{24}\b|\bb\.AAAAAQ[\w-]{80,}/g,
    minEntropy: 3,
    check: hasDigitAndLetter,
    keywords: ['hvs.', 'hvb.', 'hvr.', 's.', 'b.aaaa'],
  },
  { id: 'terraform-cloud-token', re: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9=_-]{60,70}\b/g, keywords: ['atlasv1'] },
  {
    id: 'onepassword-token',
    re: /\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b/g,
    keywords: ['ops_', 'a3-'],
  },
  {
    id: 'flyio-token',
    re: /\b(?:FlyV1 fm\d+_[\w+/=,-]{40,}|fo1_[\w-]{43}|fm[12][ar]?_[\w+/=-]{40,})/g,
    keywords: ['fly', 'fo1_', 'fm1', 'fm2'],
  },
  {
    id: 'sourcegraph-token',
    re: /\b(?:sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}|[a-fA-F0-9]{40}\b(?=.{0,20}sourcegraph))/g,
    minEntropy: 3,
    keywords: ['sgp_'],
  },
  {
    id: 'grafana-token',
    minEntropy: 3,
    re: /\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|eyJrIjoi[A-Za-z0-9]{70,400}={0,2})/g,
    keywords: ['glc_', 'glsa_', 'eyjrijoi'],
  },
  { id: 'sentry-token', re: /\bsntrys_eyJ[A-Za-z0-9+/=_-]{60,}|\bsntryu_[a-f0-9]{64}\b/g, keywords: ['sntry'] },
  { id: 'facebook-token', re: /\bEAA[MC][A-Za-z0-9]{80,}|\b\d{15,16}(?:\||%7C)[0-9a-zA-Z_-]{27}\b/g, keywords: ['eaa', '|', '%7c'] },
  { id: 'square-token', re: /\b(?:EAAA|sq0atp-|sq0csp-)[\w-]{22,60}\b/g, keywords: ['eaaa', 'sq0'] },
  { id: 'heroku-token', re: /\bHRKU-AA[0-9a-zA-Z_-]{58}\b/g, keywords: ['hrku-'] },
  { id: 'mailchimp-key', re: /\b[0-9a-f]{32}-us\d{1,2}\b/g, keywords: ['-us'] },
  {
    id: 'okta-token',
    re: /\bokta[\w.-]{0,20}["'`]?\s{0,3}[:=]\s{0,3}["'`]?(00[\w=-]{40})\b/gi,
    group: 1,
    minEntropy: 4,
    keywords: ['okta'],
  },
  { id: 'openshift-token', re: /\bsha256~[\w-]{43}\b/g, minEntropy: 3, keywords: ['sha256~'] },
  { id: 'atlassian-token', re: /\bATATT3[A-Za-z0-9_=-]{186}\b/g, keywords: ['atatt3'] },
  { id: 'scalingo-token', re: /\btk-us-[\w-]{48}\b/g, keywords: ['tk-us-'] },
  { id: 'infracost-token', re: /(?<![\w.])ico-[A-Za-z0-9]{32}\b/g, minEntropy: 3, keywords: ['ico-'] },
  { id: 'pypi-token', re: /\bpypi-AgEIcHlwaS5vcmc[\w-]{50,}/g, keywords: ['pypi-'] },
  { id: 'docker-pat', re: /\bdckr_pat_[\w-]{27,}/g, keywords: ['dckr_pat_'] },
  {
    id: 'basic-auth-url',
    re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/([^\s:@/"'<>]{0,100}):([^\s/"'<>]{1,100})@[\w-]+(?:\.[\w-]+)*/gi,
    group: 2,
    keywords: ['://'],
    // A password equal to the user name ("postgres:postgres@", "root:root@") is a product's
    // default in a quick-start, not a credential someone chose.
    context: (text, start) => !sameAsUser(text, start),
    check: (v) =>
      v.length >= 4 &&
      !isTrivialCredential(v) &&
      shannonEntropyBits(v) >= 1.5 &&
      !/^(?:password|passwd|mypassword|secret|your[_-]?\w*)$/i.test(v) &&
      !/replace|changeme|^\$|^\{|\$\{|^<|^%/i.test(v),
  },
  { id: 'curl-auth-user', re: /\bcurl\b[^]{0,300}?(?:\s-u|--user)\s{1,3}(\S{1,200})/g, group: 1, keywords: ['curl'], check: curlUserOk },
  {
    id: 'curl-auth-header',
    re: /(?:-H|--header)\s{0,3}["'](?:Authorization:\s{0,3}(?:Basic|Bearer|Token|Digest)?\s{0,3}|[\w-]*(?:api-?key|token|auth|secret)[\w-]*:\s{0,3})([^\s"']{8,})/gi,
    group: 1,
    keywords: ['-h', '--header'],
    check: (v) => !isTrivialCredential(v) && !/^[({[$<]/.test(v),
  },
  {
    id: 'sidekiq-secret',
    re: /BUNDLE_(?:ENTERPRISE__CONTRIBSYS__COM|GEMS__CONTRIBSYS__COM)\s{0,3}[:=]\s{0,3}["']?[a-f0-9]{8}:[a-f0-9]{8}/gi,
    keywords: ['contribsys'],
  },
  {
    id: 'authorization-bearer',
    // SSWS is Okta's scheme for its API tokens.
    re: /\bAuthorization\s{0,3}[:=]\s{0,3}["']?(?:Bearer|Basic|Token|SSWS)\s{1,3}([A-Za-z0-9._~+/=-]{16,})/g,
    group: 1,
    minEntropy: 3,
    keywords: ['authorization'],
  },
  { id: 'intra42-client-secret', re: /\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b/g, keywords: ['s-s4t2'] },
  {
    // A vendor's name in the variable, any token-shaped value (after gitleaks' keyword rules).
    id: 'vendor-key-assignment',
    nameKeyed: true,
    re: new RegExp(
      `(?<![A-Za-z])(?:snyk|sonar|sumologic|sumo_|heroku|hubspot|messagebird|message_bird|sourcegraph|mailgun|twilio|sendgrid|datadog|newrelic|new_relic|pagerduty|algolia|airtable|asana|bitbucket|circleci|contentful|dropbox|netlify|postman|rapidapi|travis|typeform|zendesk|launchdarkly|mapbox|plaid|pulumi|sentry|zapier|octopus|(?:${MORE_VENDORS.join('|')})[\\w.-]{0,20}(?:key|token|secret|pass|pwd|auth|credential|pat|sid|login))[\\w.-]{0,30}["'\`]?\\s{0,3}(?::{1,3}=|\\?=|:=|=>|=|:)\\s{0,3}["'\`]?([A-Za-z0-9_=+/.-]{10,100})(?![\\w(])`,
      'gi',
    ),
    group: 2,
    minEntropy: 2.8,
    check: hasDigitAndLetter,
    keywords: [
      'snyk',
      'sonar',
      'sumo',
      'heroku',
      'hubspot',
      'messagebird',
      'message_bird',
      'sourcegraph',
      'mailgun',
      'twilio',
      'sendgrid',
      'datadog',
      'newrelic',
      'new_relic',
      'pagerduty',
      'algolia',
      'airtable',
      'asana',
      'bitbucket',
      'circleci',
      'contentful',
      'dropbox',
      'netlify',
      'postman',
      'rapidapi',
      'travis',
      'typeform',
      'zendesk',
      'launchdarkly',
      'mapbox',
      'plaid',
      'pulumi',
      'sentry',
      'zapier',
      'octopus',
      ...MORE_VENDORS,
    ],
  },
  {
    // Generic assignment to a secret-sounding name, with an entropy floor on the value.
    id: 'generic-secret-assignment',
    nameKeyed: true,
    // Anchored on the secret word (fast to scan for); the rest of the name is read backwards. Up
    // to 64 name characters after the word (`token_for_the_billing_service_api`), bounded so the
    // cost per occurrence of the word stays constant.
    re: /((?:api[_.-]?key|apikey|secret|token|passwd|password|pwd|auth[_.-]?key|_auth|authtoken|credentials?|access[_.-]?key|private[_.-]?key|client[_.-]?secret|_key)[\w.-]{0,64})["'`]?\s{0,3}(?::{1,3}=|\?=|=>|=|:|,)\s{0,3}["'`]?([A-Za-z0-9_/+=~.!@#%^&*-]{8,120})/gi,
    group: 2,
    minEntropy: 3.2,
    keywords: ['key', 'secret', 'token', 'pass', 'pwd', 'credential', 'auth', 'login', 'access'],
    check: (v) => !isTrivialCredential(v),
  },
  ...GENERIC_NAME_RULES,
];

function shannonEntropyBits(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

// The password at `start` (right after "user:") repeats the user name before the colon.
function sameAsUser(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 101), start - 1);
  const user = /[^\s:@/"'<>]{1,100}$/.exec(before)?.[0];
  if (!user) return false;
  const rest = text.slice(start);
  return rest.startsWith(user) && rest[user.length] === '@';
}

function curlUserOk(raw: string): boolean {
  const v = raw.replace(/["'{}]/g, '');
  const i = v.indexOf(':');
  if (i < 0) return false;
  const user = v.slice(0, i);
  const pass = v.slice(i + 1);
  const strong = (x: string) =>
    !isTrivialCredential(x) &&
    ((x.length >= 6 && /\d|[^A-Za-z]/.test(x) && /[A-Za-z]/.test(x)) || (x.length >= 10 && shannonEntropyBits(x) >= 3));
  return pass ? strong(pass) || (user.length === 0 && pass.length >= 8) : strong(user);
}
