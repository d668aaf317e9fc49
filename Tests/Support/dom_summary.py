#!/usr/bin/env python3
"""Reads an HTML document (a browser's --dump-dom) on stdin and prints, as JSON,
the elements the preview tests look at: every img/video/audio/script element
with its attributes, and the text of every element whose class includes
"title". Parsing with a real HTML parser keeps markup inside attribute values
(which is only text) from being mistaken for elements."""
import json
import sys
from html.parser import HTMLParser


class Summary(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []
        self.titles = []
        self._title_depth = 0
        self._title_text = []

    def handle_starttag(self, tag, attrs):
        if tag in ("img", "video", "audio", "script"):
            self.elements.append({"tag": tag, "attrs": dict(attrs)})
        classes = (dict(attrs).get("class") or "").split()
        if "title" in classes:
            self._title_depth = 1
            self._title_text = []
        elif self._title_depth:
            self._title_depth += 1

    def handle_endtag(self, tag):
        if self._title_depth:
            self._title_depth -= 1
            if self._title_depth == 0:
                self.titles.append("".join(self._title_text))

    def handle_data(self, data):
        if self._title_depth:
            self._title_text.append(data)


parser = Summary()
parser.feed(sys.stdin.read())
print(json.dumps({"elements": parser.elements, "titles": parser.titles}))
