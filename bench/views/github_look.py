"""How a pull request's comment looks on github.com, for the screenshots of bench/views/: the
address the comment links its page to, and a stylesheet like GitHub's for the HTML cmarkgfm
makes of the markdown. Plain constants, imported by file too (issue44_shots.py run from an
older tree)."""

from __future__ import annotations

# Where the comment would link to (the action's post step finds the real address).
PAGE_URL = "https://github.com/octo-org/octo-repo/actions/runs/1/artifacts/2"
# A pull request's comment on github.com: the timeline column's width (the screen's on a
# phone), GitHub's system fonts, tables with cell borders, striped rows, details with a
# pointer. Written for these scripts.
GITHUB_LIKE = """
body{margin:0;background:#fff;color:#1f2328;font:14px/1.5 -apple-system,BlinkMacSystemFont,
"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}
.comment{max-width:760px;margin:16px;border:1px solid #d1d9e0;border-radius:6px}
.comment>header{background:#f6f8fa;border-bottom:1px solid #d1d9e0;padding:8px 16px;
color:#59636e}.comment>main{padding:16px;overflow-wrap:break-word}
h2{font-size:1.5em;border-bottom:1px solid #d1d9e0;padding-bottom:.3em;margin:0 0 16px}
h3{font-size:1.25em}p,ul,table,details{margin:0 0 16px}a{color:#0969da;text-decoration:none}
table{border-collapse:collapse;display:block;width:max-content;max-width:100%;overflow:auto}
th,td{border:1px solid #d1d9e0;padding:6px 13px}th{font-weight:600}
tr:nth-child(2n){background:#f6f8fa}code{background:#eff1f3;border-radius:6px;
padding:.2em .4em;font:85% ui-monospace,SFMono-Regular,Menlo,monospace}
summary{cursor:pointer}ul{padding-left:2em}blockquote{color:#59636e;
border-left:.25em solid #d1d9e0;margin:0 0 16px;padding:0 1em}
"""


def github_html(markdown: str) -> str:
    """The comment as GitHub renders it (cmarkgfm, GitHub's cmark), in a GitHub-like page."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    body = cmarkgfm.markdown_to_html_with_extensions(
        markdown,
        options=Options.CMARK_OPT_UNSAFE,
        extensions=["table", "autolink", "strikethrough", "tagfilter"],
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'  # as GitHub's
        f"<style>{GITHUB_LIKE}</style>"
        '</head><body><div class="comment"><header><b>github-actions</b> bot commented'
        f"</header><main>{body}</main></div></body></html>"
    )
