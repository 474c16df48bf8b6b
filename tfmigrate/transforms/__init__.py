"""The rules' code: one package a family, named as its catalog file ``rules/<family>.toml``.

Each family package exports its transform (a ``FamilyTransform`` the engine loads by the name in
the catalog); its ``transform`` module is the entry that composes the family's parts, and the parts
never import it back. A family imports another family only through that family's package (its
``__all__``), never its modules; what several families share lives in ``common``.
"""
