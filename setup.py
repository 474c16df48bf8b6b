"""The one packaging detail pyproject.toml cannot say: the catalog folder ``rules/`` at the top of
the repository is installed as the package ``tfmigrate.rules`` (wheel and editable installs)."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["tfmigrate", "tfmigrate.*"]), "tfmigrate.rules"],
    package_dir={"tfmigrate.rules": "rules"},
)
