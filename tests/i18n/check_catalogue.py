#!/usr/bin/env python3
"""check_catalogue.py ROOT: every string the interface shows has an entry in every language.

The English text is the key (ui/app/text/i18n.h). This script
  1. extracts the keys from the sources: the string literal (adjacent literals joined)
     that is the first argument of tr, L, N_, tr_args or menu_item in ui/ and the
     English templates of the engine's refusal table (engine/src/state/messages.cpp, ENGINE_MSG)
     and of its formulas with words (engine/src/analysis/formulas.cpp, ENGINE_FORMULA),
  2. reads the Chinese catalogue (ui/app/text/lang_zh_cn.cpp) and the page's own
     catalogue (web/site/attnviz-lang.js),
and fails (exit 1, one line per problem) when
  - a key has no Chinese entry, or an entry's key is used nowhere (stale),
  - a key is listed twice, or an entry is empty,
  - placeholders differ: printf conversions (%d, %.3f, %s ...) must be the same
    and in the same order; {0} {1} ... the same set,
  - a literal with an English word is passed straight to an ImGui call that shows
    text (ImGui::Text("Heads"), Button, Checkbox, BeginMenu, SetTooltip ...) instead
    of through tr/L: it would stay English in Chinese. Literals that read the same in
    every language (code, formulas) are wrapped in NO_TR("...").
The label's "##id" part is not shown, so for L("Decimals##view") the key is "Decimals".
"""
import json
import os
import re
import sys

STR = r'"(?:[^"\\]|\\.)*"'
LITS = rf'{STR}(?:\s*{STR})*'
KEY_CALL = re.compile(rf'(?<![\w.>])(tr|L|N_|tr_args|menu_item)\(\s*({LITS})')
# The engine's tables: refusals (every line) and the Inspector's formulas (the lines with words).
ENGINE_MSG = re.compile(rf'ENGINE_MSG\(\s*\w+\s*,\s*({LITS})|ENGINE_FORMULA\(\s*\w+\s*,\s*words\s*,\s*({LITS})')
ENTRY = re.compile(rf'\{{\s*({LITS})\s*,\s*({LITS})\s*\}}')
SHOWN = ('Text', 'TextUnformatted', 'TextWrapped', 'TextDisabled', 'BulletText', 'Button',
         'SmallButton', 'Checkbox', 'RadioButton', 'BeginMenu', 'MenuItem', 'BeginTabItem',
         'Begin', 'CollapsingHeader', 'TreeNode', 'SeparatorText', 'SetTooltip', 'Selectable',
         'Combo', 'SliderFloat', 'SliderInt', 'InputInt', 'InputFloat', 'InputText', 'DragFloat',
         'DragInt', 'LabelText', 'BeginCombo', 'SetItemTooltip', 'TextLink')
RAW_CALL = re.compile(rf'ImGui::({"|".join(SHOWN)})\(\s*({LITS})')
COLORED = re.compile(rf'ImGui::TextColored\([^;]*?,\s*({LITS})')
PRINTF = re.compile(r'%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcsp])')
POSITIONAL = re.compile(r'\{\d\}')
WORD = re.compile(r'[A-Za-z]{3,}')


def unquote(lits):
    """The value of adjacent C string literals (UTF-8 as written, C escapes decoded)."""
    out = []
    for lit in re.findall(STR, lits):
        body = lit[1:-1]
        raw = bytearray()
        i = 0
        b = body.encode('utf-8')
        while i < len(b):
            c = b[i]
            if c == 0x5C:  # backslash
                n = chr(b[i + 1])
                if n == 'x':
                    m = re.match(rb'[0-9A-Fa-f]+', b[i + 2:])
                    raw.append(int(m.group(0), 16))
                    i += 2 + len(m.group(0))
                    continue
                raw.extend({'n': b'\n', 't': b'\t', '"': b'"', '\\': b'\\', "'": b"'", '0': b'\0'}[n])
                i += 2
                continue
            raw.append(c)
            i += 1
        out.append(raw.decode('utf-8'))
    return ''.join(out)


def shown(key):
    return key.split('##', 1)[0]


def sources(root, dirs, exts):
    for d in dirs:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(exts):
                    yield os.path.join(base, f)


def placeholders(text):
    return [p for p in PRINTF.findall(text) if p != '%%'], sorted(POSITIONAL.findall(text))


# The Chinese catalogue's files: the interface's, and the lessons' text (docs/lessons.md).
CATALOGUES = ('lang_zh_cn.cpp', 'lang_zh_cn_lessons.cpp')
# The fields of a lesson file (assets/lessons/*.json) a person reads: keys like tr()'s.
LESSON_FIELDS = ('title', 'text', 'note', 'next')


def lesson_keys(root, keys):
    """Adds the keys of every lesson file: its title and next, each step's title, text and
    task text, and each code line's note."""
    folder = os.path.join(root, 'assets/lessons')
    if not os.path.isdir(folder):
        return
    for name in sorted(os.listdir(folder)):
        if not name.endswith('.json'):
            continue
        rel = f'assets/lessons/{name}'
        lesson = json.load(open(os.path.join(folder, name), encoding='utf-8'))

        def add(obj, where):
            for f in LESSON_FIELDS:
                if isinstance(obj.get(f), str) and obj[f].strip():
                    keys.setdefault(obj[f], where)
        add(lesson, rel)
        for k, step in enumerate(lesson.get('steps', [])):
            where = f'{rel} step {k + 1}'
            add(step, where)
            add(step.get('task') or {}, where)
            for line in step.get('code', []):
                add(line, where)


def line_of(text, pos):
    return text.count('\n', 0, pos) + 1


def main(root):
    problems = []
    keys = {}  # key -> first place it is used
    catalogue_files = [os.path.join(root, 'ui/app/text/' + f) for f in CATALOGUES]
    for path in sources(root, ['ui', 'engine/src'], ('.cpp', '.h')):
        if any(os.path.samefile(path, f) for f in catalogue_files) or os.path.basename(path) in ('i18n.h', 'i18n.cpp'):
            continue  # the catalogue itself; the mechanism's examples
        text = open(path, encoding='utf-8').read()
        rel = os.path.relpath(path, root)
        pattern = ENGINE_MSG if rel.startswith('engine/') else KEY_CALL
        for m in pattern.finditer(text):
            key = shown(unquote(m.group(m.lastindex)))
            if key.strip():
                keys.setdefault(key, f'{rel}:{line_of(text, m.start())}')
        if rel.startswith('ui/'):
            for rx in (RAW_CALL, COLORED):
                for m in rx.finditer(text):
                    lit = shown(unquote(m.group(m.lastindex)))
                    if WORD.search(PRINTF.sub('', lit)):
                        problems.append(f'{rel}:{line_of(text, m.start())}: "{lit}" is shown without tr()/L(): '
                                        'it stays English in Chinese (wrap it, or NO_TR("...") if it reads the same '
                                        'in every language)')

    lesson_keys(root, keys)

    entries = {}
    for name in CATALOGUES:
        text = open(os.path.join(root, 'ui/app/text', name), encoding='utf-8').read()
        # The table ends at the first line that is just "};" (a "};" inside a string does not end it).
        start = text.index('[] = {')
        body = text[start:text.index('\n};', start)]
        for m in ENTRY.finditer(body):
            en, zh = unquote(m.group(1)), unquote(m.group(2))
            where = f'ui/app/text/{name}:{line_of(text, text.index(body) + m.start())}'
            if en in entries:
                problems.append(f'{where}: "{en}" is listed twice')
            entries[en] = (zh, where)
            if not zh.strip():
                problems.append(f'{where}: "{en}" has an empty translation')
            if placeholders(en) != placeholders(zh):
                problems.append(f'{where}: "{en}" and "{zh}" have different placeholders '
                                f'{placeholders(en)} vs {placeholders(zh)}')

    for key, where in sorted(keys.items(), key=lambda kv: kv[1]):
        if key not in entries:
            problems.append(f'{where}: "{key}" has no 简体中文 entry in ui/app/text/' + (
                            'lang_zh_cn_lessons.cpp' if where.startswith('assets/lessons') else 'lang_zh_cn.cpp'))
    for en, (_, where) in entries.items():
        if en not in keys:
            problems.append(f'{where}: "{en}" is not used anywhere any more (stale entry)')

    # The page's own sentences (loading, errors before the app runs): one object per language.
    js = os.path.join(root, 'web/site/attnviz-lang.js')
    if os.path.exists(js):
        m = re.search(r'const MESSAGES = (\{.*?\n\});', open(js, encoding='utf-8').read(), re.S)
        if not m:
            problems.append('web/site/attnviz-lang.js: no `const MESSAGES = {...};` table')
        else:
            table = json.loads(m.group(1))
            langs = sorted(table)
            for lang in langs:
                for other in langs:
                    for k in sorted(set(table[lang]) - set(table[other])):
                        problems.append(f'web/site/attnviz-lang.js: "{k}" is in {lang} but not in {other}')
                for k, v in table[lang].items():
                    if k in table['en'] and placeholders(v) != placeholders(table['en'][k]):
                        problems.append(f'web/site/attnviz-lang.js: "{k}" has different placeholders in {lang}')

    for p in problems:
        print(p)
    print(f'{len(keys)} keys in the source, {len(entries)} 简体中文 entries, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../..')))
