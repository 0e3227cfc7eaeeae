"""The import rules of ARCHITECTURE.md: models/ never pulls in Beam; arrows point one way."""
import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# package -> packages it must never import
FORBIDDEN = {
    'models': {'apache_beam', 'transforms', 'pipelines', 'runners', 'sandbox'},
    'transforms': {'pipelines', 'runners', 'sandbox'},
    'pipelines': {'runners', 'sandbox'},
    'sandbox': {'apache_beam', 'transforms', 'pipelines', 'runners'},
}


def test_importing_models_imports_no_beam_module():
    code = ('import models, models.text, models.termstats, models.textrank, models.topic, '
            'models.relevance, models.html, sys; '
            'print(sorted(m for m in sys.modules if m.split(".")[0] == "apache_beam"))')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == '[]'


@pytest.mark.parametrize('package', sorted(FORBIDDEN))
def test_imports_follow_the_layout(package):
    for path in (ROOT / package).rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ''] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert name.split('.')[0] not in FORBIDDEN[package], f'{path} imports {name}'
