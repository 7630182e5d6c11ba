"""A pytest plugin for the nbval re-execution (tests/test_notebooks.py loads it with ``-p nbval_glue``).

nbval sanitises only string outputs and cannot see a glued value's name. Before the
comparison, each glued output (myst-nb/scrapbook) is rewritten as text that starts with
its name (``glue NAME: VALUE``; dicts such as the headline as sorted JSON), so that the
one sanitize file can name the values that legitimately vary (``seconds*``).
"""
import json

import nbformat
from nbval.plugin import IPyNbCell

_compare = IPyNbCell.compare_outputs


def _named(outputs):
    out = []
    for output in outputs:
        name = output.get("metadata", {}).get("scrapbook", {}).get("name")
        if name and "data" in output:
            output = nbformat.from_dict(dict(output))
            output["data"] = {mime: f"glue {name}: " + (value if isinstance(value, str)
                                                         else json.dumps(value, sort_keys=True, indent=1))
                              for mime, value in output["data"].items()}
        out.append(output)
    return out


def compare_outputs(self, test, ref, skip_compare=None):
    return _compare(self, _named(test), _named(ref), skip_compare)


IPyNbCell.compare_outputs = compare_outputs
