"""The names of the redaction types, in priority order, with the one line the docs print for each.

Order is priority: when two findings overlap, the type listed first wins, which is why specific key
prefixes (``sk-ant-``) come before generic ones (``sk-``) and secrets before personal identifiers.
The detectors in ``_secrets`` and ``_identifiers`` follow this order; a test pins that they agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["REDACTION_TYPES", "SECRET_TYPES", "IDENTIFIER_TYPES"]

SECRET_TYPES: Mapping[str, str] = MappingProxyType({
    "private_key": "PEM private key block, -----BEGIN … PRIVATE KEY----- through its END line",
    "anthropic_key": "Anthropic API key (sk-ant-…)",
    "openai_key": "OpenAI-style API key (sk-proj-…, sk-svcacct-…, sk-admin-…, legacy sk-…)",
    "github_token": "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    "gitlab_token": "GitLab personal access token (glpat-…)",
    "slack_token": "Slack token (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-) or incoming-webhook URL",
    "stripe_key": "Stripe key (sk_/rk_/pk_ live or test, whsec_ webhook secret)",
    "google_api_key": "Google API key (AIza…)",
    "aws_access_key": "AWS access key id (AKIA… long-term, ASIA… temporary)",
    "aws_secret_key": "AWS secret access key: 40 characters next to aws_secret / SecretAccessKey",
    "huggingface_token": "Hugging Face token (hf_…)",
    "npm_token": "npm access token (npm_…)",
    "jwt": "JSON Web Token (eyJ….eyJ….signature)",
    "database_url": "database URL with a password (postgres, mysql, mongodb+srv, redis, …): the whole URL",
    "url_credentials": "any other URL with user:password@ in it: the whole URL",
    "password": "value of a password assignment (password=…, \"passwd\": …, 비밀번호: …, 비번은 …)",
    "generic_secret": "value of a token/secret/API-key assignment or an Authorization Bearer/Basic header",
})

IDENTIFIER_TYPES: Mapping[str, str] = MappingProxyType({
    "email": "e-mail address",
    "kr_rrn": "주민등록번호 (resident registration number; birth date checked, checksum not required)",
    "kr_frn": "외국인등록번호 (foreigner registration number; 7th digit 5-8)",
    "credit_card": "payment card number (issuer prefix and Luhn checked)",
    "kr_phone": "Korean mobile or landline number (010-1234-5678, +82 10 …, 02-123-4567)",
    "kr_brn": "사업자등록번호 (business registration number, XXX-XX-XXXXX with a valid check digit)",
    "us_ssn": "US social security number (###-##-####, impossible areas excluded)",
    "passport": "passport number next to 여권 / passport (Korean M12345678 or M123A4567, others)",
    "bank_account": "bank account number next to a bank word (계좌, 국민, 신한, account, …)",
})

REDACTION_TYPES: Mapping[str, str] = MappingProxyType({**SECRET_TYPES, **IDENTIFIER_TYPES})
