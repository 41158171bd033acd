"""What an operator does: banks, API keys, the audit fingerprint key, the quarantine's review, and
browsing a bank."""
