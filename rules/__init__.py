"""The rule catalog: one TOML file per rule family (see tfmigrate/codemod/rule.py for the format).

This folder sits at the top of the repository; the wheel installs it as the package
``tfmigrate.rules`` (setup.py maps it), and ``tfmigrate.codemod.rule.CATALOG_DIR`` finds it either way.
"""
