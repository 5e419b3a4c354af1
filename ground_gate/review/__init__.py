"""The review of a pull request, computed from its report and its baseline: what it broke and
fixed, the worst rows, each check's status, the baseline's identity, and the words they are
said in. Every renderer reads it; none works it out again."""
