"""A pytest plugin for the nbval re-execution (tests/book/test_notebooks.py loads it with ``-p nbval_plugin``).

Two adjustments so that nbval compares like with like:

* nbval executes cells with ``store_history=False``, so IPython's "a trailing ``;``
  hides the result" looks at the previous cell; Jupyter and papermill store history.
  Cells are executed as they do.
* nbval sanitises only string outputs and cannot see a glued value's name. Before the
  comparison each glued output (myst-nb/scrapbook) is rewritten as text that starts
  with its name (``glue NAME: VALUE``; dicts such as the headline as sorted JSON), so
  the one sanitize file can name the values that legitimately vary (timings).
"""
import json

import nbformat
from nbval.kernel import RunningKernel
from nbval.plugin import IPyNbCell


def execute_cell_input(self, cell_input, allow_stdin=None):
    return self.kc.execute(cell_input, store_history=True, allow_stdin=allow_stdin, stop_on_error=False)


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


_compare = IPyNbCell.compare_outputs


def compare_outputs(self, test, ref, skip_compare=None):
    return _compare(self, _named(test), _named(ref), skip_compare)


RunningKernel.execute_cell_input = execute_cell_input
IPyNbCell.compare_outputs = compare_outputs
