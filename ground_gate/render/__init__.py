"""The renderers: the report and its review as markdown (the comment), a self-contained HTML
page, JUnit XML and the terminal's summary. They add markup; the words are the review's."""
