"""The code TFM180/TFM181 write into a module: TF 1.x's pure-Python utilities that TF 2.15 lacks.

Adapted from TensorFlow 1.15 (Apache License 2.0), Python 3 only (``six`` spelled out, the
``@deprecated`` logging dropped), with nothing else changed in what they compute:

- ``tensorflow/contrib/learn/python/learn/preprocessing/text.py`` (``tokenizer``, ``TOKENIZER_RE``,
  ``ByteProcessor``, ``VocabularyProcessor``), ``categorical_vocabulary.py`` (``CategoricalVocabulary``)
  and ``categorical.py`` (``CategoricalProcessor``, with ``setup_processor_data_feeder``'s pandas step).
  The code is the same in TF 0.12.1, 1.0.1, 1.3.0, 1.8.0 and 1.15.0 (only docstrings, the deprecation
  decorators and the spelling of one error message, "initalized" before 1.3, differ).
- ``tensorflow/contrib/training/python/training/hparam.py`` (``HParams``, ``parse_values``) of TF 1.15;
  the ``HParamDef`` protocol buffer (``hparam_def=``, ``to_proto``, ``from_proto``) is not in TF 2.15 and
  raises. TF 1.3-1.8 differed: names could not hold '.', a value of the parameter's own type was still
  cast (no difference in the result), no ``del_hparam``, no ``parse_values(ignore_unknown=)``.

The helpers are written in dependency order (a name a helper reads is written before it), once per
module, after its imports, under one comment that says what they are and where they come from.
"""

from __future__ import annotations

LICENSE = (
    "# Copyright 2016 The TensorFlow Authors. Licensed under the Apache License, Version 2.0\n"
    "# (http://www.apache.org/licenses/LICENSE-2.0); adapted for Python 3 by tfmigrate.\n"
)

# legacy name -> the name written into the module
NAMES = {
    "TOKENIZER_RE": "LEGACY_TOKENIZER_RE",
    "tokenizer": "legacy_tokenizer",
    "CategoricalVocabulary": "LegacyCategoricalVocabulary",
    "ByteProcessor": "LegacyByteProcessor",
    "VocabularyProcessor": "LegacyVocabularyProcessor",
    "CategoricalProcessor": "LegacyCategoricalProcessor",
    "HParams": "LegacyHParams",
    "parse_values": "legacy_parse_values",
}
# what a helper reads of the others (written before it)
NEEDS = {
    "tokenizer": ("TOKENIZER_RE",),
    "VocabularyProcessor": ("tokenizer", "CategoricalVocabulary"),
    "CategoricalProcessor": ("CategoricalVocabulary",),
    "HParams": ("parse_values",),
}
ORDER = tuple(NAMES)  # the order they are written in
HEADERS = {
    "preprocessing": "# tf.contrib.learn.preprocessing of TF 0.12-1.15 (tensorflow/contrib/learn/python/learn/preprocessing/),\n"
    "# which TensorFlow 2 lacks: written by tfmigrate (TFM180), the same tokenizer, ids and pickle format.\n",
    "hparam": "# tf.contrib.training.HParams of TF 1.15 (tensorflow/contrib/training/python/training/hparam.py),\n"
    "# which TensorFlow 2 lacks: written by tfmigrate (TFM181), the same parse grammar, type checks and errors.\n",
}
GROUP = {name: ("hparam" if name in ("HParams", "parse_values") else "preprocessing") for name in NAMES}

_SOURCES = {
    "TOKENIZER_RE": r'''LEGACY_TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)
''',
    "tokenizer": '''def legacy_tokenizer(iterator):
    """tf.contrib.learn.preprocessing.tokenizer: the tokens of each string, by LEGACY_TOKENIZER_RE."""
    for value in iterator:
        yield LEGACY_TOKENIZER_RE.findall(value)
''',
    "CategoricalVocabulary": '''class LegacyCategoricalVocabulary(object):
    """tf.contrib.learn.preprocessing.CategoricalVocabulary: ids by first appearance, the unknown token at 0."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        import collections
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        """Returns total count of mappings. Including unknown token."""
        return len(self._mapping)

    def freeze(self, freeze=True):
        """Freezes the vocabulary, after which new words return unknown token id."""
        self._freeze = freeze

    def get(self, category):
        """Returns word's id in the vocabulary (a new id for a new category unless frozen)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Adds count of the category to the frequency table."""
        category_id = self.get(category)
        if category_id <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Trims vocabulary for minimum frequency: ids 1..n in descending frequency, ties in sorted order."""
        self._freq = sorted(
            sorted(self._freq.items(), key=lambda x: (isinstance(x[0], str), x[0])),
            key=lambda x: x[1],
            reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in self._freq:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(self._freq[:idx - 1])

    def reverse(self, class_id):
        """Given class id reverse to original class name."""
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with "
                             "support_reverse to support reverse() function.")
        return self._reverse_mapping[class_id]
''',
    "ByteProcessor": '''class LegacyByteProcessor(object):
    """tf.contrib.learn.preprocessing.ByteProcessor: documents as their UTF-8 bytes, padded with 0."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        """Does nothing. No fitting required."""
        pass

    def fit_transform(self, x):
        """Calls transform."""
        return self.transform(x)

    def reverse(self, x):
        """Reverses output of transform back to text (an undecodable document is '')."""
        import numpy as np
        for data in x:
            document = np.trim_zeros(data.astype(np.int8), trim='b').tobytes()
            try:
                yield document.decode('utf-8')
            except UnicodeDecodeError:
                yield ''

    def transform(self, x):
        """Transforms input documents (bytes or str, encoded as UTF-8) into sequences of byte ids."""
        import numpy as np
        for document in x:
            if isinstance(document, str):
                document = document.encode('utf-8')
            document_mv = memoryview(document)
            buff = np.frombuffer(document_mv[:self.max_document_length], dtype=np.uint8)
            yield np.pad(buff, (0, self.max_document_length - len(buff)), 'constant')
''',
    "VocabularyProcessor": '''class LegacyVocabularyProcessor(object):
    """tf.contrib.learn.preprocessing.VocabularyProcessor: documents as word ids (0 = padding and unknown).

    restore() also reads a file that the legacy class saved (a pickle of
    tensorflow.contrib.learn.python.learn.preprocessing.text.VocabularyProcessor, or tensorflow_core... in
    TF 1.15): the legacy classes and tokenizer are read as these; a Python 2 pickle's str words as UTF-8."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None, tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        if vocabulary:
            self.vocabulary_ = vocabulary
        else:
            self.vocabulary_ = LegacyCategoricalVocabulary()
        if tokenizer_fn:
            self._tokenizer = tokenizer_fn
        else:
            self._tokenizer = legacy_tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Learn a vocabulary dictionary of all tokens in the raw documents."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        """Learn the vocabulary dictionary and return indexes of words."""
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields each document's word ids, cut or padded with 0 to max_document_length."""
        import numpy as np
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Reverses output of vocabulary mapping to words."""
        for item in documents:
            output = []
            for class_id in item:
                output.append(self.vocabulary_.reverse(class_id))
            yield ' '.join(output)

    def save(self, filename):
        """Saves vocabulary processor into given file (a pickle, as the legacy class wrote)."""
        import pickle
        import tensorflow as legacy_tf
        with legacy_tf.io.gfile.GFile(filename, 'wb') as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """Restores vocabulary processor from given file (saved by this class or the legacy one)."""
        import io
        import pickle
        import tensorflow as legacy_tf
        legacy = {
            ("text", "VocabularyProcessor"): LegacyVocabularyProcessor,
            ("text", "tokenizer"): legacy_tokenizer,
            ("text", "CategoricalVocabulary"): LegacyCategoricalVocabulary,
            ("categorical_vocabulary", "CategoricalVocabulary"): LegacyCategoricalVocabulary,
        }
        ours = {"LegacyVocabularyProcessor": LegacyVocabularyProcessor, "legacy_tokenizer": legacy_tokenizer,
                "LegacyCategoricalVocabulary": LegacyCategoricalVocabulary}

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                package, _, leaf = module.rpartition(".")
                if package.endswith(".contrib.learn.python.learn.preprocessing") and (leaf, name) in legacy:
                    return legacy[leaf, name]
                if name in ours:
                    return ours[name]
                return super().find_class(module, name)

        with legacy_tf.io.gfile.GFile(filename, 'rb') as f:
            return Unpickler(io.BytesIO(f.read()), encoding="utf-8").load()
''',
    "CategoricalProcessor": '''class LegacyCategoricalProcessor(object):
    """tf.contrib.learn.preprocessing.CategoricalProcessor: one vocabulary per column, NaN and unknowns are 0."""

    def __init__(self, min_frequency=0, share=False, vocabularies=None):
        self.min_frequency = min_frequency
        self.share = share
        self.vocabularies_ = vocabularies

    @staticmethod
    def _rows(x):
        """setup_processor_data_feeder: a pandas DataFrame's values, anything else as it is."""
        try:
            import pandas as pd
        except ImportError:
            return x
        return x.values if isinstance(x, pd.DataFrame) else x

    def freeze(self, freeze=True):
        """Freeze or unfreeze all vocabularies."""
        for vocab in self.vocabularies_:
            vocab.freeze(freeze)

    def fit(self, x, unused_y=None):
        """Learn a vocabulary dictionary of all categories in `x`."""
        import math
        import numpy as np
        x = self._rows(x)
        for row in x:
            if self.vocabularies_ is None:
                if not self.share:
                    self.vocabularies_ = [LegacyCategoricalVocabulary() for _ in row]
                else:
                    vocab = LegacyCategoricalVocabulary()
                    self.vocabularies_ = [vocab for _ in row]
            for idx, value in enumerate(row):
                if (isinstance(value, float) and math.isnan(value)) or value == np.nan:
                    continue
                self.vocabularies_[idx].add(value)
        if self.min_frequency > 0:
            for vocab in self.vocabularies_:
                vocab.trim(self.min_frequency)
        self.freeze()
        return self

    def fit_transform(self, x, unused_y=None):
        """Learn the vocabulary dictionary and return indexes of categories."""
        self.fit(x)
        return self.transform(x)

    def transform(self, x):
        """Yields each row's category ids (0 for NaN and unknown categories)."""
        import math
        import numpy as np
        self.freeze()
        x = self._rows(x)
        for row in x:
            output_row = []
            for idx, value in enumerate(row):
                if (isinstance(value, float) and math.isnan(value)) or value == np.nan:
                    output_row.append(0)
                    continue
                output_row.append(self.vocabularies_[idx].get(value))
            yield np.array(output_row, dtype=np.int64)
''',
    "parse_values": r'''def legacy_parse_values(values, type_map, ignore_unknown=False):
    """tf.contrib.training.parse_values (hparam.py): "x=5,L=[1,2],arr[1]=3" -> {'x': 5, 'L': [1, 2], 'arr': {1: 3}}."""
    import re
    param_re = re.compile(r"""
      (?P<name>[a-zA-Z][\w\.]*)      # variable name: "var" or "x"
      (\[\s*(?P<index>\d+)\s*\])?  # (optional) index: "1" or None
      \s*=\s*
      ((?P<val>[^,\[]*)            # single value: "a" or None
       |
       \[(?P<vals>[^\]]*)\])       # list of values: None or "1,2,3"
      ($|,\s*)""", re.VERBOSE)

    def parse_fail(name, var_type, value, values):
        raise ValueError("Could not parse hparam '%s' of type '%s' with value '%s' in %s" %
                         (name, var_type.__name__, value, values))

    def reuse_fail(name, values):
        raise ValueError("Multiple assignments to variable '%s' in %s" % (name, values))

    def process_scalar_value(name, parse_fn, var_type, m_dict, values, results_dictionary):
        try:
            parsed_value = parse_fn(m_dict['val'])
        except ValueError:
            parse_fail(name, var_type, m_dict['val'], values)
        if not m_dict['index']:
            if name in results_dictionary:
                reuse_fail(name, values)
            results_dictionary[name] = parsed_value
        else:
            if name in results_dictionary:
                if not isinstance(results_dictionary.get(name), dict):
                    reuse_fail(name, values)
            else:
                results_dictionary[name] = {}
            index = int(m_dict['index'])
            if index in results_dictionary[name]:
                reuse_fail('{}[{}]'.format(name, index), values)
            results_dictionary[name][index] = parsed_value

    def process_list_value(name, parse_fn, var_type, m_dict, values, results_dictionary):
        if m_dict['index'] is not None:
            raise ValueError('Assignment of a list to a list index.')
        elements = filter(None, re.split('[ ,]', m_dict['vals']))
        if name in results_dictionary:
            raise reuse_fail(name, values)
        try:
            results_dictionary[name] = [parse_fn(e) for e in elements]
        except ValueError:
            parse_fail(name, var_type, m_dict['vals'], values)

    results_dictionary = {}
    pos = 0
    while pos < len(values):
        m = param_re.match(values, pos)
        if not m:
            raise ValueError('Malformed hyperparameter value: %s' % values[pos:])
        pos = m.end()
        m_dict = m.groupdict()
        name = m_dict['name']
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError('Unknown hyperparameter type for %s' % name)
        type_ = type_map[name]
        if type_ == bool:
            def parse_bool(value):
                if value in ['true', 'True']:
                    return True
                elif value in ['false', 'False']:
                    return False
                else:
                    try:
                        return bool(int(value))
                    except ValueError:
                        parse_fail(name, type_, value, values)
            parse = parse_bool
        else:
            parse = type_
        if m_dict['val'] is not None:
            process_scalar_value(name, parse, type_, m_dict, values, results_dictionary)
        elif m_dict['vals'] is not None:
            process_list_value(name, parse, type_, m_dict, values, results_dictionary)
        else:
            parse_fail(name, type_, '', values)
    return results_dictionary
''',
    "HParams": '''class LegacyHParams(object):
    """tf.contrib.training.HParams: hyperparameters as typed attributes, overridden by parse("a=1,b=[1,2]")."""

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types = {}
        self._model_structure = model_structure
        if hparam_def:
            raise ValueError('hparam_def: the HParamDef protocol buffer of tf.contrib.training is not in '
                             'TensorFlow 2; build the hyperparameters from keyword arguments')
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    @staticmethod
    def _cast_to_type_if_compatible(name, param_type, value):
        """Cast hparam to the provided type, if compatible (ValueError if not)."""
        import numbers
        fail_msg = ("Could not cast hparam '%s' of type '%s' from value %r" % (name, param_type, value))
        if type(value) == param_type:
            return value
        if issubclass(param_type, type(None)):
            return value
        if (issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes))):
            raise ValueError(fail_msg)
        if issubclass(param_type, bool) != isinstance(value, bool):
            raise ValueError(fail_msg)
        if (issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral)):
            raise ValueError(fail_msg)
        if (issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number)):
            raise ValueError(fail_msg)
        return param_type(value)

    def add_hparam(self, name, value):
        """Adds {name, value} pair to hyperparameters (ValueError for a reserved name or an empty list)."""
        if getattr(self, name, None) is not None:
            raise ValueError('Hyperparameter name is reserved: %s' % name)
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError('Multi-valued hyperparameters cannot be empty: %s' % name)
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name, value):
        """Set the value of an existing hyperparameter (KeyError if unknown, ValueError on a type mismatch)."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError('Must not pass a list for single-valued parameter: %s' % name)
            setattr(self, name, [self._cast_to_type_if_compatible(name, param_type, v) for v in value])
        else:
            if is_list:
                raise ValueError('Must pass a list for multi-valued parameter: %s.' % name)
            setattr(self, name, self._cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name):
        """Removes the hyperparameter with key 'name'. Does nothing if it isn't present."""
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values):
        """Override existing hyperparameter values, parsing new values from a string."""
        type_map = {}
        for name, t in self._hparam_types.items():
            param_type, _ = t
            type_map[name] = param_type
        values_map = legacy_parse_values(values, type_map)
        return self.override_from_dict(values_map)

    def override_from_dict(self, values_dict):
        """Override existing hyperparameter values, parsing new values from a dictionary."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_from_map(self, values_map):
        """DEPRECATED. Use override_from_dict."""
        return self.override_from_dict(values_dict=values_map)

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False):
        """Serializes the hyperparameters into JSON."""
        import json
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json):
        """Override existing hyperparameter values, parsing new values from a json object."""
        import json
        values_map = json.loads(values_json)
        return self.override_from_dict(values_map)

    def values(self):
        """Return the hyperparameter values as a Python dictionary."""
        return {n: getattr(self, n) for n in self._hparam_types.keys()}

    def get(self, key, default=None):
        """Returns the value of `key` if it exists, else `default` (which must fit the parameter's type)."""
        if key in self._hparam_types:
            if default is not None:
                param_type, is_param_list = self._hparam_types[key]
                type_str = 'list<%s>' % param_type if is_param_list else str(param_type)
                fail_msg = ("Hparam '%s' of type '%s' is incompatible with "
                            'default=%s' % (key, type_str, default))
                is_default_list = isinstance(default, list)
                if is_param_list != is_default_list:
                    raise ValueError(fail_msg)
                try:
                    if is_default_list:
                        for value in default:
                            self._cast_to_type_if_compatible(key, param_type, value)
                    else:
                        self._cast_to_type_if_compatible(key, param_type, default)
                except ValueError as e:
                    raise ValueError('%s. %s' % (fail_msg, e))
            return getattr(self, key)
        return default

    def __contains__(self, key):
        return key in self._hparam_types

    def __str__(self):
        hpdict = self.values()
        output_list = ['{}={}'.format(key, hpdict[key]) for key in hpdict]
        return ','.join(output_list)

    def __repr__(self):
        strval = str(sorted(self.values().items()))
        name = type(self).__name__
        return '%s(%s)' % ('HParams' if name == 'LegacyHParams' else name, strval)

    def to_proto(self, export_scope=None):
        raise NotImplementedError('HParams.to_proto: the HParamDef protocol buffer of tf.contrib.training is not '
                                  'in TensorFlow 2; use to_json()')

    @staticmethod
    def from_proto(hparam_def, import_scope=None):
        raise NotImplementedError('HParams.from_proto: the HParamDef protocol buffer of tf.contrib.training is '
                                  'not in TensorFlow 2; use parse_json()')
''',
}


def helper_name(name: str) -> str:
    return NAMES[name]


def with_needs(names: set[str]) -> list[str]:
    """``names`` and every helper they read, in the order they must be written."""
    wanted = set(names)
    stack = list(names)
    while stack:
        for need in NEEDS.get(stack.pop(), ()):
            if need not in wanted:
                wanted.add(need)
                stack.append(need)
    return [name for name in ORDER if name in wanted]


def helper_source(name: str) -> str:
    return _SOURCES[name]


def block(names: list[str]) -> str:
    """The text written into a module: for each group used, its header comment, the licence and the
    helpers of that group (the tokenizer's regex is compiled at import: the module imports ``re``)."""
    parts = []
    for group in ("preprocessing", "hparam"):
        mine = [n for n in names if GROUP[n] == group]
        if not mine:
            continue
        text = HEADERS[group] + LICENSE
        parts.append(text + "\n\n".join(_SOURCES[n] for n in mine))
    return "\n\n".join(parts)
