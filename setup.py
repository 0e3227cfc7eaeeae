"""Installs Focal's packages and the `focal` command.

Beam workers install the same packages from this file (`--setup_file ./setup.py`), so the
driver and the workers run identical code with identical pinned dependencies. The install
compiles models/segment.pyx (a C compiler and Python headers; pyproject.toml brings Cython and
lxml to the build), on workers too.
"""
import lxml
import setuptools

# models/segment.pyx reads lxml's elements in C: it must be built against the lxml it runs with
# (pyproject.toml's build requirement names the same version).
LXML_VERSION = '6.1.3'
if lxml.__version__ != LXML_VERSION:
    raise SystemExit(f'building Focal needs lxml {LXML_VERSION} (the version it runs with), found {lxml.__version__}: '
                     'build with pip, which installs pyproject.toml\'s build requirements')

REQUIRED = [
    'apache-beam==2.77.0',
    'certifi==2026.10.19.post1',  # the CA bundle the fetcher verifies TLS with (models/fetch.py)
    'charset-normalizer==3.5.2',
    'jieba==0.42.1',
    f'lxml=={LXML_VERSION}',
    'matplotlib==3.11.2',
    'numpy==2.4.6',
    'protego==0.7.0',
    'rjieba==0.2.2',  # jieba's segmentation in Rust: the same tokens, ~12x faster (models/text.py)
    'pyarrow==25.0.1',
    'pyyaml==6.0.3',
    'requests==2.34.2',
    'scikit-learn==1.9.1',
    'scipy==1.17.1',
    'selenium==4.51.0',  # reports checked in headless Chromium (runners/browser_check.py)
    'stopwordsiso==0.7.1',
    'tqdm==4.70.1',
    'urllib3==2.8.0',  # the fetcher's HTTP client (models/fetch.py); requests for the search APIs
    'warcio==1.8.1',
]

TEST = [
    'networkx==3.6.1',  # PageRank's reference in tests
    'pytest==9.2.0',
]

setuptools.setup(
    name='focal',
    version='0.1.0',
    description='Focused crawling and domain web discovery on Apache Beam',
    python_requires='>=3.11',
    packages=setuptools.find_packages(include=['models', 'models.*', 'transforms', 'transforms.*',
                                               'pipelines', 'pipelines.*', 'runners', 'runners.*',
                                               'sandbox', 'sandbox.*']),
    package_data={'models': ['block_model.json']},  # the trained block model (benchmarks/train_block_model.py)
    # The segmentation walk reads lxml's tree in C (models/segment.pyx); pyproject.toml brings Cython.
    ext_modules=[setuptools.Extension('models.segment', ['models/segment.pyx'], include_dirs=lxml.get_include())],
    install_requires=REQUIRED,
    extras_require={'test': TEST},
    entry_points={'console_scripts': ['focal = runners.cli:run']},
)
