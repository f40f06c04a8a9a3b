//! The curated secret pattern set: one entry per format, each with a stable kind name,
//! the literal anchors the prefilter looks for, the regular expression and the check that
//! tells a real value from a placeholder.
//!
//! Every expression is written so that a whole match is the secret (with the key word
//! that names it, for the formats recognised by context) and nothing around it; the
//! checks in [`super::checks`] then look at the named group `p` (the random part of a
//! token) or `v` (an assigned value).

/// How a match is confirmed after the expression matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    /// A token format: not glued to letters or digits on either side, and its random
    /// part `p` is not a run of `x`, `*` or `0` (a documentation placeholder).
    Token,
    /// As [`Check::Token`], and `p` has a lower-case letter and an upper-case letter
    /// or a digit (`hf_transformerscache…` is an identifier).
    Mixed,
    /// As [`Check::Token`], and `p` is the base64 of a Discord user id (17–20 digits).
    DiscordId,
    /// The password `p` of a URL's user info is not a placeholder.
    UrlPassword,
    /// The assigned value `v` is a literal that is not a placeholder or a code reference.
    Assignment,
    /// An `-----END … PRIVATE KEY-----` line: right after key data `p` that is not a
    /// placeholder, or alone on its line (a paste that lost its BEGIN line).
    KeyEnd,
}

/// One format of the set.
#[derive(Debug)]
pub(super) struct Pattern {
    /// The stable kind name reported in findings and errors.
    pub kind: &'static str,
    /// What the pattern matches, in one line.
    pub doc: &'static str,
    /// Lower-case literals one of which every match contains (matched ASCII
    /// case-insensitively by the prefilter).
    pub anchors: &'static [&'static str],
    /// The expression.
    pub regex: &'static str,
    /// The confirmation.
    pub check: Check,
    /// Generic patterns (assignments, URLs, headers) are reported only when no named
    /// format matched: `GITHUB_TOKEN=ghp_…` is a `github-token`.
    pub generic: bool,
}

const fn token(
    kind: &'static str,
    doc: &'static str,
    anchors: &'static [&'static str],
    regex: &'static str,
) -> Pattern {
    Pattern {
        kind,
        doc,
        anchors,
        regex,
        check: Check::Token,
        generic: false,
    }
}

/// The set, in priority order (of two matches starting at the same byte, the earlier
/// entry wins).
pub(super) const PATTERNS: &[Pattern] = &[
    Pattern {
        kind: "google-service-account-key",
        doc: "a Google service-account JSON `\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n…\"`",
        anchors: &["\"private_key\""],
        regex: r#""private_key"\s*:\s*"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:\\[nr]|\s)*(?P<p>[A-Za-z0-9+/=]{20,})[^"]*""#,
        check: Check::Token,
        generic: false,
    },
    token(
        "private-key",
        "a PEM, OpenSSH, PGP or encrypted private key block: `-----BEGIN … PRIVATE KEY-----` (or `PGP PRIVATE KEY BLOCK`) with key data, up to its `-----END` line",
        &["private key"],
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[nr])*(?:[A-Za-z][A-Za-z-]*: [^\n]*(?:\s|\\[nr])+)*(?P<p>[A-Za-z0-9+/=]{20,})(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?",
    ),
    token(
        "private-key",
        "a whole `-----BEGIN … PRIVATE KEY-----` … `-----END … PRIVATE KEY-----` block, whatever its content",
        &["private key"],
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?P<p>[\s\S]*?[A-Za-z0-9][\s\S]*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
    ),
    token(
        "private-key",
        "a PuTTY private key file (`PuTTY-User-Key-File-N:` … `Private-Lines:` with key data)",
        &["putty-user-key-file-"],
        r"PuTTY-User-Key-File-[0-9]: [\s\S]*?Private-Lines: [0-9]+\r?\n(?P<p>[A-Za-z0-9+/=]{20,})",
    ),
    Pattern {
        kind: "private-key",
        doc: "the `-----END … PRIVATE KEY-----` line of a key pasted without its BEGIN line: alone on its line, or right after key data",
        anchors: &["private key"],
        regex: r"(?:(?P<p>[A-Za-z0-9+/=]{20,})[ \t]*(?:\r?\n|\\r\\n|\\n)[ \t]*)?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        check: Check::KeyEnd,
        generic: false,
    },
    token(
        "age-secret-key",
        "an age encryption secret key `AGE-SECRET-KEY-1…`",
        &["age-secret-key-1"],
        r"AGE-SECRET-KEY-1(?P<p>[0-9A-Z]{58})",
    ),
    token(
        "aws-access-key",
        "an AWS access key id: `AKIA`, `ASIA`, `ABIA` or `ACCA` and 16 base32 characters",
        &["akia", "asia", "abia", "acca"],
        r"(?P<p>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})",
    ),
    token(
        "aws-secret-key",
        "an AWS secret access key: 40 base64 characters assigned to `aws_secret_access_key`, `SecretAccessKey`, `aws_secret_key` and the like",
        &["secret"],
        r#"(?i:(?:aws)?[_.-]?secret[_.-]?access[_.-]?key|aws[_.-]?secret[_.-]?key)["']?[ \t]*(?:=>|[:=])[ \t]*["']?(?P<p>[A-Za-z0-9/+]{40})"#,
    ),
    token(
        "google-api-key",
        "a Google API key: `AIza` and 35 characters",
        &["aiza"],
        r"AIza(?P<p>[0-9A-Za-z_-]{35})",
    ),
    token(
        "google-oauth-secret",
        "a Google OAuth client secret `GOCSPX-…`",
        &["gocspx-"],
        r"GOCSPX-(?P<p>[0-9A-Za-z_-]{28})",
    ),
    token(
        "azure-storage-key",
        "an Azure storage account key in a connection string: `AccountKey=` and 40 or more base64 characters",
        &["accountkey"],
        r"(?i:AccountKey)[ \t]*=[ \t]*(?P<p>[A-Za-z0-9+/]{40,}={0,2})",
    ),
    token(
        "azure-shared-access-key",
        "an Azure Service Bus, Event Hubs or IoT Hub key: `SharedAccessKey=` and 40 or more base64 characters",
        &["sharedaccesskey"],
        r"(?i:SharedAccessKey)[ \t]*=[ \t]*(?P<p>[A-Za-z0-9+/]{40,}={0,2})",
    ),
    token(
        "azure-sas-token",
        "an Azure shared access signature: `sv=YYYY-MM-DD&…sig=…` in a URL or connection string",
        &["sig="],
        r"sv=[0-9]{4}-[0-9]{2}-[0-9]{2}&[^\s<>]*?sig=(?P<p>[A-Za-z0-9%+/=]{20,})",
    ),
    token(
        "github-token",
        "a GitHub token: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` and 36 or more letters and digits",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"gh[pousr]_(?P<p>[A-Za-z0-9]{36,251})",
    ),
    token(
        "github-token",
        "a fine-grained GitHub token `github_pat_…`",
        &["github_pat_"],
        r"github_pat_(?P<p>[A-Za-z0-9_]{50,255})",
    ),
    token(
        "gitlab-token",
        "a GitLab token: `glpat-`, `gldt-`, `glrt-`, `glptt-`, `glft-`, `glimt-`, `glagent-`, `gloas-`, `glsoat-`, `glcbt-` and 20 or more characters, or a runner registration token `GR1348941…`",
        &[
            "glpat-",
            "gldt-",
            "glrt-",
            "glptt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glsoat-",
            "glcbt-",
            "gr1348941",
        ],
        r"(?:(?:glpat|gldt|glrt|glptt|glft|glimt|glagent|gloas|glsoat|glcbt)-|GR1348941)(?P<p>[A-Za-z0-9_-]{20,})",
    ),
    token(
        "bitbucket-app-password",
        "a Bitbucket app password `ATBB…` (28 or more characters after the prefix)",
        &["atbb"],
        r"ATBB(?P<p>[A-Za-z0-9_=.-]{28,})",
    ),
    token(
        "atlassian-api-token",
        "an Atlassian API token `ATATT3…`",
        &["atatt3"],
        r"ATATT3(?P<p>[A-Za-z0-9_=.-]{60,})",
    ),
    token(
        "slack-token",
        "a Slack token: `xoxa-`, `xoxb-`, `xoxp-`, `xoxo-`, `xoxs-`, `xoxr-`, `xoxe-` (`xoxo-` with its numeric parts) and 10 or more characters, or an app-level `xapp-N-…`",
        &["xox", "xapp-"],
        r"(?:xox[abprse]-|xoxo-[0-9]+-|xapp-[0-9]-[A-Z0-9]+-[0-9]+-)(?P<p>[0-9A-Za-z-]{10,})",
    ),
    token(
        "slack-webhook",
        "a Slack incoming-webhook or workflow URL `hooks.slack.com/services/…`",
        &["hooks.slack.com/"],
        r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/(?P<p>[A-Za-z0-9_/-]{20,})",
    ),
    token(
        "discord-webhook",
        "a Discord webhook URL `discord.com/api/webhooks/<id>/<token>`",
        &["discord"],
        r"(?:https?://)?(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/(?P<p>[A-Za-z0-9_-]{30,})",
    ),
    Pattern {
        kind: "discord-bot-token",
        doc: "a Discord bot token (base64 user id, timestamp, HMAC) in a text that mentions Discord",
        anchors: &["discord"],
        regex: r"(?P<p>[MNO][A-Za-z0-9_-]{22,27})\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        check: Check::DiscordId,
        generic: false,
    },
    token(
        "telegram-bot-token",
        "a Telegram bot token: the bot id (5 to 12 digits), `:AA` and 33 characters",
        &[":aa"],
        r"[0-9]{5,12}:AA(?P<p>[0-9A-Za-z_-]{33})",
    ),
    token(
        "stripe-key",
        "a Stripe secret or restricted key (`sk_live_`, `sk_test_`, `rk_live_`, `rk_test_`) or webhook secret (`whsec_`)",
        &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
        r"(?:[sr]k_(?:live|test)_|whsec_)(?P<p>[0-9A-Za-z]{20,247})",
    ),
    token(
        "square-token",
        "a Square access token (`EAAA…`, `sq0atp-…`) or OAuth secret (`sq0csp-…`)",
        &["sq0atp-", "sq0csp-", "eaaa"],
        r"(?:sq0atp-|sq0csp-|EAAA)(?P<p>[0-9A-Za-z_-]{22,80})",
    ),
    token(
        "paypal-braintree-token",
        "a PayPal/Braintree access token `access_token$production$…$…` (or `$sandbox$`)",
        &["access_token$"],
        r"access_token\$(?:production|sandbox)\$(?P<p>[0-9a-z]{16}\$[0-9a-f]{32})",
    ),
    token(
        "twilio-key",
        "a Twilio API key (`SK…`), account SID (`AC…`) or auth token (32 hex digits) on a line that names Twilio",
        &["twilio"],
        r"(?i:twilio)[^\n]{0,80}?(?-u:\b)(?P<p>(?:SK|AC)[0-9a-fA-F]{32}|[0-9a-f]{32})",
    ),
    token(
        "sendgrid-key",
        "a SendGrid API key `SG.<22>.<43>`",
        &["sg."],
        r"SG\.(?P<p>[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})",
    ),
    token(
        "mailgun-key",
        "a Mailgun API key: `key-` and 32 hex digits",
        &["key-"],
        r"key-(?P<p>[0-9a-f]{32})",
    ),
    token(
        "mailgun-key",
        "a Mailgun `hex32-hex8-hex8` key on a line that names Mailgun",
        &["mailgun"],
        r"(?i:mailgun)[^\n]{0,80}?(?-u:\b)(?P<p>[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})",
    ),
    token(
        "npm-token",
        "an npm access token `npm_` and 36 letters and digits",
        &["npm_"],
        r"npm_(?P<p>[A-Za-z0-9]{36})",
    ),
    token(
        "npm-token",
        "an `.npmrc` `:_authToken=` literal value",
        &["_authtoken"],
        r#":_authToken[ \t]*=[ \t]*["']?(?P<p>[A-Za-z0-9._~+/=-]{16,})"#,
    ),
    token(
        "pypi-token",
        "a PyPI or TestPyPI upload token `pypi-AgEIcHlwaS5vcmc…`",
        &["pypi-ag"],
        r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)(?P<p>[A-Za-z0-9_-]{16,})",
    ),
    token(
        "anthropic-key",
        "an Anthropic API key `sk-ant-…`",
        &["sk-ant-"],
        r"sk-ant-(?P<p>[A-Za-z0-9_-]{16,})",
    ),
    token(
        "openai-key",
        "an OpenAI API key: `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…` (20 or more characters after the prefix), or `sk-` and 32 or more letters and digits",
        &["sk-"],
        r"sk-(?:(?:proj|svcacct|admin)-(?P<p>[A-Za-z0-9_-]{20,})|(?P<q>[A-Za-z0-9]{32,}))",
    ),
    Pattern {
        kind: "huggingface-token",
        doc: "a Hugging Face token `hf_…` or `api_org_…` (30 or more letters and digits, with a lower-case letter and an upper-case letter or a digit)",
        anchors: &["hf_", "api_org_"],
        regex: r"(?:hf|api_org)_(?P<p>[A-Za-z0-9]{30,})",
        check: Check::Mixed,
        generic: false,
    },
    token(
        "hashicorp-vault-token",
        "a HashiCorp Vault service or batch token `hvs.…`, `hvb.…`",
        &["hvs.", "hvb."],
        r"hv[sb]\.(?P<p>[A-Za-z0-9_-]{24,})",
    ),
    token(
        "digitalocean-token",
        "a DigitalOcean token `dop_v1_…`, `doo_v1_…`, `dor_v1_…` (64 hex digits)",
        &["dop_v1_", "doo_v1_", "dor_v1_"],
        r"do[por]_v1_(?P<p>[a-f0-9]{64})",
    ),
    token(
        "shopify-token",
        "a Shopify access token or shared secret `shpat_`, `shpca_`, `shppa_`, `shpss_` (32 hex digits)",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
        r"shp(?:at|ca|pa|ss)_(?P<p>[a-fA-F0-9]{32})",
    ),
    token(
        "jwt",
        "a JSON Web Token: `eyJ…` header, `eyJ…` claims and a signature, dot separated",
        &["eyj"],
        r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.(?P<p>[A-Za-z0-9_-]{10,})",
    ),
    Pattern {
        kind: "password-in-url",
        doc: "a URL with a password in its user info, `scheme://user:password@host` (not `user@host`, not an empty or placeholder password such as `${PASS}`)",
        anchors: &["://"],
        regex: r#"[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@"'<>\[\]]*:(?P<p>[^\s/?#@"'<>]+)@[A-Za-z0-9._~%-]+"#,
        check: Check::UrlPassword,
        generic: true,
    },
    Pattern {
        kind: "authorization-header",
        doc: "an HTTP `Authorization: Bearer|Basic|Token|Bot <credential>` with a literal credential",
        anchors: &["authorization"],
        regex: r#"(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?i:bearer|basic|token|bot)[ \t]+(?P<p>[A-Za-z0-9._~+/=-]{16,})"#,
        check: Check::Token,
        generic: true,
    },
    Pattern {
        kind: "secret-assignment",
        doc: "a `password=`, `secret:`, `token:`, `api_key=` (and the like) assignment of a literal that is not a placeholder (`<…>`, `${…}`, `xxx`, `changeme`, `***`, `REDACTED`, empty) or a code reference",
        anchors: &[
            "password",
            "passwd",
            "passphrase",
            "pwd",
            "secret",
            "token",
            "apikey",
            "api_key",
            "api-key",
            "api key",
            "accesskey",
            "access_key",
            "access-key",
            "access key",
            "privatekey",
            "private_key",
            "private-key",
        ],
        regex: r#"(?i:[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|pwd|secret|token|api[_ -]?key|access[_ -]?key|private[_-]?key)(?:[_.-]?(?:key|token|value|string|str))?)["']?(?:\*\*|__)?[ \t]*(?P<s>:=|=|:)(?:\*\*|__)?[ \t]*(?P<v>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|[^\s"'`,;)}\]]+)"#,
        check: Check::Assignment,
        generic: true,
    },
];
