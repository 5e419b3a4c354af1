"""Pure renderings: the versioned JSON report, and markdown rendered from that JSON."""
