/**
 * Hand-written cues of prompt injection, matched on folded text (see text/normalize.ts). Each
 * cue belongs to a family; the classifier uses the family counts as features, so no single
 * phrase decides on its own. Every pattern is linear-time: bounded gaps, no nested quantifiers.
 */

export type CueFamily =
  | 'override'
  | 'new_rules'
  | 'role_header'
  | 'delimiter'
  | 'addressed_to_ai'
  | 'extraction'
  | 'persona'
  | 'tool_misuse'
  | 'exfiltration'
  | 'multilingual'
  | 'secrecy'
  | 'secret_request';

export const CUE_FAMILIES: readonly CueFamily[] = [
  'override',
  'new_rules',
  'role_header',
  'delimiter',
  'addressed_to_ai',
  'extraction',
  'persona',
  'tool_misuse',
  'exfiltration',
  'multilingual',
  'secrecy',
  'secret_request',
];

const PREV =
  '(?:all |any |the |your |my |these |those |of |every )*(?:previous|prior|above|earlier|preceding|initial|original|old|existing|current|system|developer|safety|default|given|former)';
const RULES =
  '(?:instructions?|directions?|rules?|guidelines?|prompts?|constraints?|commands?|directives?|polic(?:y|ies)|programming|restrictions?|filters?|guardrails?|orders?|settings?|configuration|persona|training|task|criteria|messages|context|guidance)';
const VERB =
  "(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|override|overrid|bypass|drop|cancel|erase|discard|abandon|neglect|void|stop following|do not follow|don't follow|no longer follow|set aside|throw out|delete|remove|clear)";

// Anchors of the two override patterns below (one list: both need a verb of VERB or a noun of RULES).
const OVERRIDE_ANCHORS: readonly string[] = [
  'ignore',
  'ignoring',
  'disregard',
  'disregarding',
  'forget',
  'forgetting',
  'skip',
  'override',
  'overrid',
  'bypass',
  'drop',
  'cancel',
  'erase',
  'discard',
  'abandon',
  'neglect',
  'void',
  'stop',
  'do',
  "don't",
  'no',
  'set',
  'throw',
  'delete',
  'remove',
  'clear',
  '&',
  'instructions',
  'instruction',
  'directions',
  'direction',
  'rules',
  'rule',
  'guidelines',
  'guideline',
  'prompts',
  'prompt',
  'constraints',
  'constraint',
  'commands',
  'command',
  'directives',
  'directive',
  'policy',
  'policies',
  'programming',
  'restrictions',
  'restriction',
  'filters',
  'filter',
  'guardrails',
  'guardrail',
  'orders',
  'order',
  'settings',
  'setting',
  'configuration',
  'persona',
  'training',
  'task',
  'criteria',
  'messages',
  'context',
  'guidance',
];

// Each cue: family, anchors (a word that must occur for the pattern to be worth running; '#'
// marks a raw substring instead of a word), pattern. The anchors keep the scan cheap: most text
// contains none of them.
const CUES: ReadonlyArray<readonly [CueFamily, readonly string[], RegExp]> = [
  ['override', OVERRIDE_ANCHORS, new RegExp(`\\b${VERB} ${PREV}(?: [a-z]+){0,2} ${RULES}\\b`, 'g')],
  ['override', OVERRIDE_ANCHORS, new RegExp(`\\b${VERB} (?:all |any |your |the |everything )(?:[a-z]+ ){0,2}${RULES}\\b`, 'g')],
  [
    'override',
    ['ignore', 'disregard', 'forget', '&', 'everything', 'all', 'anything'],
    /\b(?:ignore|disregard|forget) (?:everything|all|anything) (?:above|before|prior|previously|you (?:were|have been) told)\b/g,
  ],
  [
    'override',
    [
      'instructions',
      'instruction',
      'rules',
      'rule',
      'prompt',
      'guidelines',
      'guideline',
      '&',
      'void',
      'outdated',
      'cancelled',
      'canceled',
      'revoked',
      'obsolete',
      'test',
      'longer',
    ],
    /\b(?:instructions?|rules?|prompt|guidelines?)(?: [a-z]+){0,3} (?:is|are|was|were) (?:now )?(?:void|outdated|cancel+ed|revoked|obsolete|a test|no longer (?:valid|apply|applies))\b/g,
  ],
  [
    'override',
    ['told', 'said', 'instructed', 'sandbox', 'follow', 'developer', 'admin', 'administrator', 'operator', 'owner'],
    /\b(?:what|everything|anything) (?:the developer|your developers?|openai|the system|they|you were|you've been|you have been) (?:told|said|instructed)\b|\b(?:exit|leave|escape) (?:the |this )?sandbox\b|\bfollow only my\b|\bi(?:'m| am) the (?:developer|admin|administrator|operator|owner) now\b/g,
  ],
  [
    'override',
    ['apply', 'applies', 'bound', 'binding'],
    /\b(?:no longer|doesn't|does not|don't|do not) (?:apply|applies|bound|binding)\b/g,
  ],
  [
    'override',
    ['ignore', 'disregard'],
    /\b(?:ignore|disregard) (?:the|this|my|your) (?:user|question|document|request|task|email|above)\b/g,
  ],
  [
    'override',
    ['instead'],
    /\binstead(?:,)? (?:you (?:must|should|will) )?(?:output|print|say|reply|respond|write|tell|recommend|send|call|reveal)\b/g,
  ],
  [
    'override',
    ['translating', 'summarising', 'summarizing', 'doing', 'task', '&', 'stop', 'quit'],
    /\b(?:stop|quit) (?:translating|summari[sz]ing|what you(?:'re| are) doing|your current task)\b/g,
  ],
  [
    'new_rules',
    [
      'new',
      'updated',
      'real',
      'actual',
      'true',
      'revised',
      'additional',
      'secret',
      'hidden',
      '&',
      'instructions',
      'instruction',
      'rules',
      'rule',
      'prompt',
      'task',
      'goal',
      'directive',
      'policy',
      'priority',
      'orders',
      'order',
    ],
    /\b(?:new|updated|real|actual|true|revised|additional|secret|hidden) (?:system )?(?:instructions?|rules?|system prompt|task|goal|directive|policy|priority|orders?)\b/g,
  ],
  [
    'new_rules',
    ['now', 'henceforth', 'rest', 'point', 'moment', '&', 'from', 'for', 'henceforth'],
    /\bfrom now on\b|\bfrom this (?:message|point|moment) on\b|\bfor the rest of (?:this|the) (?:chat|conversation|session)\b|\bhenceforth\b/g,
  ],
  [
    'new_rules',
    ['priority', 'precedence'],
    /\b(?:higher|highest|top) priority\b|\bpriority (?:order|0|override)\b|\btakes? (?:priority|precedence)\b/g,
  ],
  [
    'new_rules',
    [
      'restrictions',
      'restriction',
      'filter',
      'filters',
      'filtering',
      'censorship',
      'limitations',
      'limitation',
      'guidelines',
      'rules',
      'safety',
      'content',
      'refusals',
      'refusal',
      'refusing',
      'warnings',
      'morals',
      'morality',
      'moral',
      'ethics',
      'ethical',
    ],
    /\b(?:without|no|ignore (?:all|any|your)) (?:any )?(?:restrictions?|filter(?:s|ing)?|censorship|limitations?|guidelines|rules|safety (?:caveats|rules|filters?)|content polic(?:y|ies)|refus(?:als?|ing)|warnings|moral(?:s|ity)?|ethic(?:s|al guidelines))\b/g,
  ],
  [
    'new_rules',
    ['refuse', 'decline', 'refuses', 'say', 'mention', '&', 'never', 'not'],
    /\b(?:never|not) (?:refuse|decline|say no|mention (?:this|policies|the rules))\b|\bnever refuses\b/g,
  ],
  [
    'new_rules',
    ['comply', 'obey', 'answer', 'follow', '&', 'must', 'will', 'required', 'have'],
    /\b(?:you must|you will|you are required to|you have to) (?:now )?(?:comply|obey|answer (?:every|all|any)|follow (?:only )?(?:my|these|the following))\b/g,
  ],
  [
    'new_rules',
    [
      'disable',
      'turn',
      'deactivate',
      'bypass',
      '&',
      'filters',
      'filter',
      'guardrails',
      'guardrail',
      'safety',
      'moderation',
      'restrictions',
      'checks',
      'check',
    ],
    /\b(?:disable|turn off|deactivate|bypass) (?:the |your |all |any )?(?:content |safety )?(?:filters?|guardrails?|safety|moderation|restrictions|checks?)\b/g,
  ],
  [
    'role_header',
    ['system', 'assistant', 'developer', 'admin', 'root', 'operator', '&', '#:'],
    /(?:^|[\n>] ?|\. |\] ?)(?:system|assistant|developer|admin|root|operator)(?: message| prompt| note| override| instructions?)?\s?:/g,
  ],
  [
    'role_header',
    [
      '#<|',
      '[inst]',
      '[/inst]',
      '<<sys>>',
      '<</sys>>',
      '<system',
      '<sys',
      '<instruction',
      '<admin',
      '</system',
      '</sys',
      '</instruction',
      '</admin',
      '{{',
    ],
    /<\|?(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|?>|\[\/?inst\]|<<\/?sys>>|<\/?(?:system|sys|instructions?|admin)>|\{\{\s*(?:ai|system|assistant)\b/g,
  ],
  [
    'role_header',
    ['system', 'instruction', 'instructions', 'response', 'admin', '&', '###', '#==', '#['],
    /#{2,}\s?(?:system|instruction|instructions|response|admin)\b|={2,} ?(?:system|admin)|\[(?:system|admin|begin admin|system override|system message)[^\]\n]{0,40}\]/g,
  ],
  ['role_header', ['#"role"'], /"role"\s?:\s?"(?:system|developer)"/g],
  [
    'delimiter',
    ['end', 'begin', '&', 'document', 'input', 'context', 'email', 'file', 'text', 'data', 'admin', 'system', 'new'],
    /\b(?:end of (?:document|user input|input|context|email|file|text|data)|begin (?:admin|system|new) (?:instructions?|prompt|message))\b/g,
  ],
  ['delimiter', ['#[end', '#[begin', '#---', '#>>>', '#<<<'], /\[(?:end|begin)[^\]\n]{0,30}\]|-{3,} ?(?:end|begin)\b|>{3} |<{3}/g],
  ['delimiter', ['#<!--'], /<!--[^>\n]{0,40}(?:assistant|ai|instruction|system|ignore)/g],
  [
    'addressed_to_ai',
    [
      'ai',
      'llm',
      'gpt',
      'chatgpt',
      'assistant',
      'agent',
      'bot',
      'model',
      'models',
      'assistants',
      'agents',
      'bots',
      '#a.i.',
      'language',
      '&',
      'note',
      'message',
      'instruction',
      'instructions',
      'attention',
      'reminder',
      'important',
      'ps',
      'p',
      '#p.s',
    ],
    /\b(?:note|message|instructions?|attention|reminder|important|p\.?s\.?)\s?(?:to|for|:)? ?(?:any |all |the )?(?:ai|a\.i\.|llm|gpt|chatgpt|language model|assistant|agent|bot|model)s?\b/g,
  ],
  [
    'addressed_to_ai',
    ['if', '&', 'ai', 'llm', 'language', 'assistant', 'chatbot', 'bot', 'agent', 'automated'],
    /\bif you are an? (?:ai|llm|language model|assistant|chatbot|bot|agent|automated)\b/g,
  ],
  [
    'addressed_to_ai',
    [
      'reading',
      'summarising',
      'summarizing',
      'processing',
      'screening',
      'parsing',
      'analysing',
      'analyzing',
      'reviewing',
      '&',
      'ai',
      'llm',
      'coding',
      'language',
    ],
    /\b(?:ai|llm|coding|language) (?:agents?|assistants?|models?|note-taker)(?: [a-z]+){0,2} (?:reading|summari[sz]ing|processing|screening|parsing|analy[sz]ing|reviewing)\b/g,
  ],
  [
    'addressed_to_ai',
    ['ai', 'assistant', 'chatgpt', 'claude', 'gpt', 'agent', 'bot', '#ai-agent'],
    /(?:^|[.!?] |\n|@)(?:ai|assistant|ai-agent|ai agent|chatgpt|claude|gpt|agent|bot),? (?:ignore|please|you must|when|do|stop|send|forward|tell|reply|print|add|accept|grant|include|call|execute|run)\b/g,
  ],
  [
    'addressed_to_ai',
    ['must', 'should', 'shall', '&', 'assistant', 'assistants', 'ai', 'model', 'models', 'agent', 'agents'],
    /\b(?:assistants?|ai|models?|agents?) (?:must|should|shall) (?:now |also |immediately )?(?:ignore|tell|recommend|call|send|say|reply|respond|print|output|forward|include|execute|run)\b/g,
  ],
  [
    'extraction',
    [
      'prompt',
      'message',
      'hidden',
      'initial',
      'original',
      'instructions',
      'instruction',
      'developer',
      'context',
      'internal',
      'secret',
      'confidential',
      'guardrail',
      'blocked',
      'tool',
      'first',
      'configuration',
      'given',
    ],
    /\b(?:reveal|print|output|show|display|repeat|dump|leak|expose|share|tell me|give me|paste|quote|spell out|translate|summari[sz]e|list|write out|recite|copy)(?: me)?(?: (?:your|the|all|any|every|its))?(?: [a-z]+){0,3} (?:system prompt|system message|hidden (?:prompt|instructions|text|rules)|initial (?:prompt|instructions?)|original (?:prompt|instructions)|instructions (?:you were given|above)|developer (?:message|prompt)|context window|prompt (?:above|verbatim)|internal (?:configuration|instructions|rules|settings|tools)|(?:secret|confidential|internal) (?:instructions|rules|prompt|parameters|configuration)|guardrail polic(?:y|ies)|blocked keywords|tool definitions|hidden configuration|first instruction|configuration)\b/g,
  ],
  [
    'extraction',
    ['verbatim', 'word', 'exact', 'exactly', 'raw', 'copied', 'no', '#word-for-word'],
    /\b(?:verbatim|word for word|word-for-word|exact wording|exactly as (?:it|they) appears?|raw text only|copied exactly|no paraphrasing)\b/g,
  ],
  [
    'extraction',
    ['before', 'above', 'begin', 'begins'],
    /\b(?:what|everything|text|all) (?:that )?(?:appears?|is|was|came) (?:written )?(?:before|above) (?:my|this|the) (?:first )?(?:message|prompt|line|conversation)\b|\bbegin(?:s)? with ['"]?you are\b/g,
  ],
  [
    'persona',
    ['you', '&', 'now', 'longer', 'going', 'about', 'free', 'freed', 'unbound', 'jailbroken', 'in'],
    /\byou are (?:now|no longer|going to (?:act|pretend|be)|about to immerse|free|freed|unbound|jailbroken|in (?:developer|god|dan|maintenance|debug|unrestricted) mode)\b/g,
  ],
  [
    'persona',
    ['mode', 'anything', 'jailbreak', 'jailbroken', 'dan', 'character'],
    /\b(?:developer|god|dan|jailbreak|unrestricted|uncensored|evil|maintenance|debug) mode\b|\bdo anything now\b|\bjailbr(?:eak|oken)\b|\bdan\b|\bstay in character\b|\bbreak character\b/g,
  ],
  [
    'persona',
    ['act', 'pretend', 'roleplay', 'role-play', 'simulate', 'immerse', '&', 'as', 'be', 'you', "you're", 'yourself'],
    /\b(?:act as|pretend (?:to be|you are|you're)|roleplay as|role-play as|simulate|immerse yourself|you will (?:act|respond|answer) as)\b/g,
  ],
  [
    'persona',
    ['responses', 'answers', 'personalities', 'opposite', 'ethical', 'moral', 'unfiltered', 'amoral', 'openai', "openai's"],
    /\b(?:two|2|dual) (?:responses|answers|personalities)\b|\bopposite of your (?:guidelines|rules)\b|\bno (?:ethical|moral) (?:guidelines|principles|boundaries)\b|\bunfiltered\b|\bamoral\b|\bopenai(?:'s)? (?:content )?polic(?:y|ies)\b/g,
  ],
  [
    'tool_misuse',
    ['call', 'use', 'invoke', 'run', 'execute', 'trigger', '&', 'tool', 'function', '#_'],
    /\b(?:call|use|invoke|run|execute|trigger) (?:the |your |a )?[a-z_]+(?:_[a-z]+)+(?: tool| function)?\b|\b(?:call|use|invoke|run) (?:the |your )?(?:shell|terminal|browser|database|file|email|http|code) tool\b/g,
  ],
  [
    'tool_misuse',
    ['#curl', '#rm', '-rf', '#/etc/', '#~/.aws', 'environment', 'force', '#--force'],
    /\bcurl [^|\n]{0,80}\| ?(?:ba)?sh\b|\brm -rf\b|\/etc\/(?:passwd|shadow)\b|~\/\.aws\/credentials|\benvironment variables\b|\bforce push|--force\b/g,
  ],
  [
    'tool_misuse',
    ['admin', 'root', 'owner', 'approval', 'review', 'confirmation', 'verification', 'asking'],
    /\b(?:grant|give|add)(?: [a-z'0-9]+){0,3} (?:admin|root|owner) (?:role|rights|access|privileges)\b|\bskip (?:the )?(?:approval|review|confirmation|verification)\b|\bwithout (?:asking for )?(?:confirmation|review|approval|asking)\b/g,
  ],
  [
    'exfiltration',
    [
      'send',
      'forward',
      'email',
      'post',
      'upload',
      'transmit',
      'exfiltrate',
      'leak',
      'paste',
      'append',
      'attach',
      'dm',
      '&',
      '#http',
      '#@',
      '#.example',
      '#.attacker',
      'url',
      'link',
      'address',
      'endpoint',
    ],
    /\b(?:send|forward|email|post|upload|transmit|exfiltrate|leak|paste|append|attach|dm)(?: [a-z'0-9]+){0,6} (?:to|into|at|in) (?:https?:\/\/|[a-z0-9.-]+@|[a-z0-9-]+\.(?:example|attacker)|the (?:url|link|address|endpoint))/g,
  ],
  [
    'exfiltration',
    [
      'api',
      'credential',
      'credentials',
      'session',
      'password',
      'secret',
      'secrets',
      'token',
      'tokens',
      'private',
      'conversation',
      'chat',
      'full',
      'address',
      'customer',
      'user',
    ],
    /\b(?:api key|credentials?|session token|password|secrets?|tokens?|private keys?|conversation history|chat history|full conversation|address book|customer records|user data(?:base)?)\b/g,
  ],
  ['exfiltration', ['#![', '#?', '#url', '#base64'], /!\[[^\]\n]{0,40}\]\(https?:|\?[a-z]+=(?:\{|\[|<)|url-?encode|base64-?encod/g],
  [
    'secrecy',
    [
      'mention',
      'tell',
      'reveal',
      'inform',
      'let',
      'show',
      'telling',
      'informing',
      'notifying',
      'quietly',
      'notice',
      '&',
      "don't",
      'do',
      'never',
      'without',
      'quietly',
      'so',
    ],
    /\b(?:don't|do not|never) (?:mention|tell|reveal|inform|let|show) (?:this|it|that|the user|them|anyone)\b|\bwithout (?:telling|informing|notifying) (?:the )?(?:user|anyone)\b|\bquietly\b|\bso (?:the user|they) (?:won't|will not|doesn't|does not) (?:notice|know|see)\b/g,
  ],
  // es, fr, de, pt, it, nl, zh, ja, ko, ru, tr, pl, ar, hi, vi, id
  [
    'multilingual',
    ['ignora', 'ignore', 'olvida', 'olvide', 'descarta', 'omite', 'ignoras', 'ignores', 'instrucciones', 'mensaje'],
    /\b(?:ignora|ignore|olvida|olvide|descarta|omite)[sz]? (?:todas |todos )?(?:las |los |tus |sus )?(?:instrucciones|reglas|indicaciones|órdenes)\b|\binstrucciones anteriores\b|\bmensaje de sistema\b/g,
  ],
  [
    'multilingual',
    ['ignore', 'ignorez', 'ignores', 'oublie', 'oubliez', 'oublies', 'instructions', 'consignes', 'désormais'],
    /\b(?:ignore[zs]?|oublie[zs]?|oubliez) (?:toutes |tous )?(?:les |tes |vos |mes )?(?:consignes|instructions|règles|directives)\b|\binstructions précédentes\b|\bconsignes précédentes\b|\bdésormais\b/g,
  ],
  [
    'multilingual',
    ['ignoriere', 'ignorieren', 'vergiss', 'vergessen', 'missachte', 'vorherigen', 'systemprompt'],
    /\b(?:ignoriere|ignorieren sie|vergiss|vergessen sie|missachte)(?: alle| die| deine| ihre| bisherigen| vorherigen| vorigen){0,3} (?:anweisungen|regeln|vorgaben|instruktionen|befehle)\b|\bvorherigen anweisungen\b|\bsystemprompt\b/g,
  ],
  [
    'multilingual',
    ['esqueça', 'esqueca', 'ignore', 'ignora', 'desconsidere', 'regras'],
    /\b(?:esqueça|esqueca|ignore|ignora|desconsidere)(?: todas| as| suas| tuas){0,3} (?:instruções|instrucoes|regras|orientações)(?: anteriores)?\b|\bregras anteriores\b/g,
  ],
  [
    'multilingual',
    ['ignora', 'dimentica', 'trascura', 'istruzioni'],
    /\b(?:ignora|dimentica|trascura)(?: tutte| le| tue){0,3} (?:istruzioni|regole|indicazioni)\b|\bistruzioni precedenti\b/g,
  ],
  [
    'multilingual',
    ['negeer', 'vergeet', 'zignoruj', 'zapomnij', '#önceki', '#yok', 'say', '#bỏ', 'abaikan'],
    /\b(?:negeer|vergeet)(?: alle| de| je){0,3} (?:instructies|regels)\b|\b(?:zignoruj|zapomnij)(?: wszystkie| poprzednie){0,2} (?:instrukcje|polecenia|zasady)\b|önceki (?:tüm )?talimatları\b|\byok say\b|\bbỏ qua (?:tất cả )?(?:các )?(?:hướng dẫn|chỉ dẫn)\b|\babaikan (?:semua )?instruksi\b/g,
  ],
  [
    'multilingual',
    [
      '#忽略',
      '#无视',
      '#忽视',
      '#不要理会',
      '#之前',
      '#系统',
      '#以前',
      '#指示',
      '#無視',
      '#システム',
      '#이전',
      '#무시',
      '#시스템',
      '#игнориру',
      '#забуд',
      '#проигнориру',
      '#предыдущ',
      '#системн',
      '#تجاهل',
      '#निर्देश',
    ],
    /忽略|无视|忽视|不要理会|之前的(?:所有)?(?:指令|指示|说明)|系统提示|系统消息|以前の|指示を(?:すべて|全て)?無視|無視して|システムプロンプト|이전의? (?:모든 )?지시|무시하고|시스템 프롬프트|(?:игнорируй|игнорируйте|забудь|забудьте|проигнорируй)|предыдущие инструкции|системн(?:ый|ое) (?:промпт|сообщение)|تجاهل|पिछले (?:सभी )?निर्देश/g,
  ],
  // Overrides in further languages of scripts/injection-corpus/own-ml.mjs (uk, fa, bn, th, tl, sw,
  // el, ro, he) and more verbs in hi, ar, ja, ko, zh.
  [
    'multilingual',
    [
      '#ігноруй',
      '#проігноруй',
      '#попередні інструкції',
      '#نادیده بگیر',
      '#دستورالعمل‌های قبلی',
      '#উপেক্ষা কর',
      '#আগের সব নির্দেশ',
      '#เพิกเฉยต่อคำสั่ง',
      '#ไม่ต้องสนใจคำสั่ง',
      '#ลืมคำสั่ง',
      '#huwag pansinin ang',
      '#kalimutan ang',
      '#puuza maagizo',
      '#sahau maagizo',
      '#αγνόησε',
      '#αγνοήστε',
      '#προηγούμενες οδηγίες',
      '#ignoră',
      '#ignorați',
      '#instrucțiunile anterioare',
      '#התעלם',
      '#הוראות קודמות',
      '#अनदेखा कर',
      '#नज़रअंदाज़',
      '#انسَ',
      '#忘れて',
      '#잊어버리',
      '#忘掉',
      '#忘记',
    ],
    /instrucțiunile anterioare|προηγούμενες οδηγίες|попередні інструкції|دستورالعمل‌های قبلی|huwag pansinin ang|ไม่ต้องสนใจคำสั่ง|เพิกเฉยต่อคำสั่ง|আগের সব নির্দেশ|kalimutan ang|הוראות קודמות|sahau maagizo|puuza maagizo|نادیده بگیر|проігноруй|नज़रअंदाज़|উপেক্ষা কর|अनदेखा कर|ลืมคำสั่ง|ignorați|αγνοήστε|αγνόησε|ігноруй|ignoră|התעלם|انسَ|잊어버리|忘れて|忘掉|忘记/g,
  ],
  // Non-English names of what extraction attacks ask for (password, secret key, system prompt,
  // initial instructions, developer mode) in the languages of scripts/injection-corpus/own-ml.mjs.
  // A noun alone is weak evidence ("how do I reset my password?"): the count is one feature
  // whose weight is learned next to the benign look-alikes, shared across languages so that a
  // phrasing the n-grams never saw still carries the cue.
  [
    'secret_request',
    [
      'passwort',
      'kennwort',
      'contraseña',
      'senha',
      'wachtwoord',
      'hasło',
      'hasła',
      'haslo',
      'şifre',
      'şifreyi',
      'şifren',
      'nenosiri',
      'пароль',
      'пароля',
      'паролем',
      'ключ',
      'промпт',
      'кодовое',
      'κωδικός',
      'κωδικό',
      'סיסמה',
      'סיסמא',
      'مرور',
      'السر',
      'السري',
      'عبور',
      'مخفی',
      '#mot de passe',
      '#clé secrète',
      '#clef secrète',
      '#prompt système',
      '#prompt du système',
      '#instructions initiales',
      '#mode développeur',
      '#geheimen schlüssel',
      '#geheimer schlüssel',
      '#geheime schlüssel',
      '#system-prompt',
      '#ursprünglichen anweisungen',
      '#entwicklermodus',
      '#clave secreta',
      '#prompt del sistema',
      '#instrucciones iniciales',
      '#modo desarrollador',
      '#modo de desarrollador',
      '#chiave segreta',
      '#prompt di sistema',
      '#istruzioni iniziali',
      '#modalità sviluppatore',
      '#chave secreta',
      '#prompt do sistema',
      '#instruções iniciais',
      '#modo desenvolvedor',
      '#modo de desenvolvedor',
      '#geheime sleutel',
      '#systeemprompt',
      '#oorspronkelijke instructies',
      '#ontwikkelaarsmodus',
      '#tajny klucz',
      '#tajnego klucza',
      '#prompt systemowy',
      '#tryb dewelopera',
      '#trybie dewelopera',
      '#секретный ключ',
      '#секретного ключа',
      '#системный промпт',
      '#исходные инструкции',
      '#режим разработчика',
      '#режиме разработчика',
      '#секретний ключ',
      '#системний промпт',
      '#режим розробника',
      '#режимі розробника',
      '#gizli anahtar',
      '#sistem istemi',
      '#geliştirici mod',
      '#كلمة المرور',
      '#كلمة السر',
      '#المفتاح السري',
      '#موجه النظام',
      '#وضع المطور',
      '#رمز عبور',
      '#کلید مخفی',
      '#حالت توسعه',
      '#mật khẩu',
      '#khóa bí mật',
      '#lời nhắc hệ thống',
      '#chế độ nhà phát triển',
      '#kata sandi',
      '#kunci rahasia',
      '#prompt sistem',
      '#mode pengembang',
      '#lihim na susi',
      '#ufunguo wa siri',
      '#κωδικός πρόσβασης',
      '#μυστικό κλειδί',
      '#λειτουργία προγραμματιστή',
      '#parolă',
      '#cheia secretă',
      '#modul dezvoltator',
      '#מפתח סודי',
      '#密码',
      '#密碼',
      '#密钥',
      '#秘钥',
      '#密鑰',
      '#系统提示',
      '#系統提示',
      '#开发者模式',
      '#開發者模式',
      '#パスワード',
      '#秘密鍵',
      '#秘密のキー',
      '#システムプロンプト',
      '#開発者モード',
      '#비밀번호',
      '#비밀 키',
      '#암호',
      '#시스템 프롬프트',
      '#개발자 모드',
      '#पासवर्ड',
      '#गुप्त कुंजी',
      '#सिस्टम प्रॉम्प्ट',
      '#डेवलपर मोड',
      '#পাসওয়ার্ড',
      '#গোপন চাবি',
      '#ডেভেলপার মোড',
      '#รหัสผ่าน',
      '#กุญแจลับ',
      '#โหมดนักพัฒนา',
    ],
    /oorspronkelijke instructies|ursprünglichen anweisungen|λειτουργία προγραμματιστή|instrucciones iniciales|instructions initiales|modalità sviluppatore|modo de desarrollador|chế độ nhà phát triển|modo de desenvolvedor|instruções iniciais|режиме разработчика|istruzioni iniziali|исходные инструкции|geheimen schlüssel|prompt del sistema|modo desenvolvedor|geheimer schlüssel|modo desarrollador|режим разработчика|ontwikkelaarsmodus|modul dezvoltator|trybie dewelopera|prompt do sistema|prompt di sistema|prompt du système|geheime schlüssel|lời nhắc hệ thống|κωδικός πρόσβασης|режимі розробника|mode développeur|секретного ключа|prompt systemowy|режим розробника|системный промпт|सिस्टम प्रॉम्प्ट|системний промпт|geheime sleutel|mode pengembang|entwicklermodus|geliştirici mod|ufunguo wa siri|tryb dewelopera|prompt système|секретный ключ|chiave segreta|μυστικό κλειδί|секретний ключ|tajnego klucza|system-prompt|systeemprompt|sistem istemi|kunci rahasia|prompt sistem|clave secreta|chave secreta|gizli anahtar|lihim na susi|المفتاح السري|cheia secretă|โหมดนักพัฒนา|ডেভেলপার মোড|clef secrète|mot de passe|khóa bí mật|كلمة المرور|tajny klucz|موجه النظام|clé secrète|गुप्त कुंजी|পাসওয়ার্ড|kata sandi|wachtwoord|وضع المطور|डेवलपर मोड|حالت توسعه|contraseña|システムプロンプト|کلید مخفی|كلمة السر|מפתח סודי|গোপন চাবি|mật khẩu|رمز عبور|รหัสผ่าน|passwort|시스템 프롬프트|nenosiri|กุญแจลับ|kennwort|кодовое|κωδικός|पासवर्ड|паролем|şifreyi|пароль|parolă|пароля|şifren|промпт|개발자 모드|κωδικό|開発者モード|السري|senha|秘密のキー|開發者模式|hasło|haslo|סיסמא|hasła|סיסמה|パスワード|şifre|开发者模式|系統提示|عبور|ключ|비밀번호|مرور|مخفی|系统提示|비밀 키|السر|秘密鍵|密钥|암호|密码|密鑰|密碼|秘钥/g,
  ],
];

const ANCHOR_WORD = /[\p{L}\p{N}'-]+/gu;

// Anchors are OR-ed; a '&' element starts another group that must also match. They are compiled
// once into an index: word anchor -> the (cue, group) slots it satisfies, plus each group's raw
// substring anchors. Per text, one map lookup per word marks the satisfied slots, instead of a
// Set lookup per anchor per cue (hundreds per text).
interface CompiledCue {
  family: CueFamily;
  re: RegExp;
  /** Slot of each group in the per-text `satisfied` array. */
  slots: number[];
  /** Per group: its substring anchors ('#' elements, without the '#'). */
  substrings: string[][];
}
const WORD_SLOTS = new Map<string, number[]>();
let slotCount = 0;
const COMPILED: readonly CompiledCue[] = CUES.map(([family, anchors, re]) => {
  const slots: number[] = [];
  const substrings: string[][] = [];
  const open = () => {
    slots.push(slotCount++);
    substrings.push([]);
  };
  open();
  for (const a of anchors) {
    if (a === '&') open();
    else if (a.charCodeAt(0) === 35) substrings[substrings.length - 1]!.push(a.slice(1));
    else {
      const slot = slots[slots.length - 1]!;
      const list = WORD_SLOTS.get(a);
      if (!list) WORD_SLOTS.set(a, [slot]);
      else if (!list.includes(slot)) list.push(slot);
    }
  }
  return { family, re, slots, substrings };
});

function anchorsPresent(cue: CompiledCue, folded: string, satisfied: Uint8Array): boolean {
  for (let g = 0; g < cue.slots.length; g++) {
    if (satisfied[cue.slots[g]!] === 1) continue;
    let hit = false;
    for (const sub of cue.substrings[g]!) {
      if (folded.includes(sub)) {
        hit = true;
        break;
      }
    }
    if (!hit) return false;
  }
  return true;
}

/** One cue hit: its family and where it is in the folded text. */
export interface CueHit {
  family: CueFamily;
  start: number;
  end: number;
}

/**
 * Long cue words an attacker (or a hurried writer) misspells: "iunstructions", "previuos". A word
 * one edit (insertion, deletion, substitution or swap of neighbours) from one of them is read as
 * it, so a typo does not take a text out of the cues. Only long words: short ones have real-word
 * neighbours ("signore", "ignored").
 */
const TYPO_TARGETS: readonly string[] = [
  'instructions',
  'instruction',
  'previous',
  'disregard',
  'guidelines',
  'directives',
  'restrictions',
  'everything',
  'developer',
];
const TYPO_MIN = 7;

/** Whether `a` is one edit from `b` (Damerau: insert, delete, substitute, swap neighbours), `a !== b`. */
function oneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (la === lb) {
    if (i === la) return false;
    // substitution, or a swap of i and i+1
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // one insertion in the longer word at i
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The cue word a misspelled word stands for, if it is one edit from exactly such a word. */
function typoTarget(word: string): string | undefined {
  if (word.length < TYPO_MIN || WORD_SLOTS.has(word)) return undefined;
  for (const target of TYPO_TARGETS) if (oneEditApart(word, target)) return target;
  return undefined;
}

/**
 * Folded text with misspelled cue words spelled right, and a map back: `at[k]` is the original
 * offset of corrected offset `k` (one entry per corrected character, plus the end). Undefined when
 * no word needed correcting (the common case: no copy).
 */
function correctTypos(folded: string): { text: string; at: Int32Array } | undefined {
  let parts: string[] | undefined;
  let starts: number[] | undefined;
  let last = 0;
  for (const m of folded.matchAll(ANCHOR_WORD)) {
    const target = typoTarget(m[0]);
    if (target === undefined) continue;
    (parts ??= []).push(folded.slice(last, m.index), target);
    (starts ??= []).push(last, m.index!);
    last = m.index! + m[0].length;
  }
  if (!parts || !starts) return undefined;
  parts.push(folded.slice(last));
  starts.push(last);
  const text = parts.join('');
  const at = new Int32Array(text.length + 1);
  let k = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const origin = starts[p]!;
    // A kept piece maps one to one; a corrected word maps every character to the word's start.
    for (let j = 0; j < part.length; j++) at[k++] = p % 2 === 0 ? origin + j : origin;
  }
  at[k] = folded.length;
  return { text, at };
}

/** All cue hits in folded text, in pattern order. Bounded: at most 64 hits per pattern. */
export function findCues(folded: string): CueHit[] {
  const hits: CueHit[] = [];
  const satisfied = new Uint8Array(slotCount);
  let misspelled = false;
  for (const word of folded.match(ANCHOR_WORD) ?? []) {
    let slots = WORD_SLOTS.get(word);
    if (!slots) {
      const target = typoTarget(word);
      if (target !== undefined) {
        misspelled = true;
        slots = WORD_SLOTS.get(target);
      }
    }
    if (slots) for (const slot of slots) satisfied[slot] = 1;
  }
  // Positions are needed only when a word was misspelled (rare): only then are the words matched
  // again with their offsets and a corrected copy made.
  const corrected = misspelled ? correctTypos(folded) : undefined;
  const text = corrected?.text ?? folded;
  const at = corrected?.at;
  for (const cue of COMPILED) {
    if (!anchorsPresent(cue, text, satisfied)) continue;
    const re = cue.re;
    re.lastIndex = 0;
    let n = 0;
    for (const m of text.matchAll(re)) {
      const start = m.index;
      const end = m.index + m[0].length;
      hits.push({ family: cue.family, start: at ? at[start]! : start, end: at ? at[end]! : end });
      if (++n >= 64) break;
    }
  }
  return hits;
}

/** Cue hit counts per family, in `CUE_FAMILIES` order. */
export function countCues(hits: readonly CueHit[]): number[] {
  const counts = CUE_FAMILIES.map(() => 0);
  for (const h of hits) counts[CUE_FAMILIES.indexOf(h.family)]! += 1;
  return counts;
}
