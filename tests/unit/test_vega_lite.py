"""setlab.render.vega_lite: Altair without jsonschema's IRI checker, and why that changes no
validation (Vega-Lite's schema has no ``iri`` format)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path


def test_the_schema_altair_validates_against_has_no_iri_format():
    import altair

    schemas = list(Path(altair.__file__).parent.glob("vegalite/v*/schema/vega-lite-schema.json"))
    assert schemas, "no Vega-Lite schema in the installed Altair"
    for schema in schemas:
        formats = set(re.findall(r'"format":\s*"([^"]+)"', schema.read_text()))
        assert formats and not {f for f in formats if f.startswith("iri")}, formats


def test_importing_it_leaves_the_iri_checker_out_and_altair_still_validates():
    code = (
        "import sys\n"
        "from setlab.render.vega_lite import alt\n"
        "import jsonschema\n"
        "chart = alt.Chart(alt.Data(values=[{'x': 1}])).mark_point().encode(x='x:Q')\n"
        "spec = chart.to_dict()\n"
        "try:\n"
        "    alt.Chart(alt.Data(values=[])).mark_point(size='big').to_dict()\n"
        "    refused = False\n"
        "except Exception:\n"
        "    refused = True\n"
        "print(json.dumps({'hidden': 'rfc3987_syntax' not in sys.modules, 'refused': refused,\n"
        "                  'mark': spec['mark']['type']}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == {"hidden": True, "refused": True, "mark": "point"}
