// The file editor's CodeMirror 6 parts: an editor with line numbers, undo history, search
// (Ctrl+F / ⌘F) and the syntax of config formats (languages.ts), and a read-only unified diff of
// the text as read against the text to save. Imported only from FileEditor.svelte, which the page
// loads on the first file opened (lib/lazy.svelte.ts), so none of it is in the first bundle.

import { EditorState, type Extension } from "@codemirror/state";
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { highlightSelectionMatches, openSearchPanel, search, searchKeymap } from "@codemirror/search";
import { HighlightStyle, StreamLanguage, bracketMatching, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { nginx } from "@codemirror/legacy-modes/mode/nginx";
import { toml } from "@codemirror/legacy-modes/mode/toml";
import { properties } from "@codemirror/legacy-modes/mode/properties";
import { dockerFile } from "@codemirror/legacy-modes/mode/dockerfile";
import { unifiedMergeView } from "@codemirror/merge";
import type { EditorLanguage } from "./languages";

function syntax(language: EditorLanguage | null): Extension {
  switch (language) {
    case null:
      return [];
    case "json":
      return json();
    case "yaml":
      return yaml();
    case "shell":
      return StreamLanguage.define(shell);
    case "nginx":
      return StreamLanguage.define(nginx);
    case "toml":
      return StreamLanguage.define(toml);
    case "ini":
      return StreamLanguage.define(properties);
    case "dockerfile":
      return StreamLanguage.define(dockerFile);
  }
}

/** Colours from the page's theme (FileEditor.svelte sets the variables for light and dark). */
const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.operatorKeyword, tags.modifier], color: "var(--cm-keyword)" },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: "var(--cm-string)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--cm-comment)", fontStyle: "italic" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: "var(--cm-number)" },
  {
    tag: [tags.propertyName, tags.attributeName, tags.definition(tags.propertyName), tags.variableName],
    color: "var(--cm-property)",
  },
  { tag: [tags.heading, tags.meta, tags.typeName, tags.className], color: "var(--cm-heading)", fontWeight: "bold" },
  { tag: tags.invalid, color: "var(--bad)" },
]);

const look = EditorView.theme({
  "&": { height: "100%", fontSize: "13px", color: "var(--text)", backgroundColor: "var(--terminal-bg)" },
  ".cm-scroller": { fontFamily: "var(--mono, ui-monospace, monospace)" },
  ".cm-gutters": { backgroundColor: "var(--chrome)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--cm-active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  ".cm-panels": { backgroundColor: "var(--chrome)", color: "var(--text)" },
  // The diff: lines added green, removed red, strong enough to see at a glance in both themes.
  ".cm-changedLine": { backgroundColor: "rgb(46 160 67 / 0.16)" },
  ".cm-changedText": { backgroundColor: "rgb(46 160 67 / 0.32)", backgroundImage: "none" },
  ".cm-deletedChunk": { backgroundColor: "rgb(248 81 73 / 0.16)" },
  ".cm-deletedChunk .cm-deletedText": { backgroundColor: "rgb(248 81 73 / 0.32)" },
  ".cm-changeGutter": { width: "3px" },
});

function base(language: EditorLanguage | null, label: string): Extension {
  return [
    lineNumbers(),
    highlightSpecialChars(),
    drawSelection(),
    bracketMatching(),
    syntax(language),
    syntaxHighlighting(highlight),
    look,
    EditorView.contentAttributes.of({ "aria-label": label }),
  ];
}

export interface TextEditor {
  text(): string;
  focus(): void;
  openSearch(): void;
  destroy(): void;
}

/** An editor of `doc` in `parent`; `onChange` after each change of the text. */
export function createEditor(
  parent: HTMLElement,
  doc: string,
  language: EditorLanguage | null,
  label: string,
  onChange: () => void,
): TextEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        base(language, label),
        highlightActiveLine(),
        highlightActiveLineGutter(),
        history(),
        search({ top: true }),
        highlightSelectionMatches(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange();
        }),
      ],
    }),
  });
  return {
    text: () => view.state.doc.toString(),
    focus: () => view.focus(),
    openSearch: () => openSearchPanel(view),
    destroy: () => view.destroy(),
  };
}

/** A read-only unified diff in `parent`: `original` (as read) against `changed` (to save), with
 * long unchanged runs folded away. */
export function createDiff(
  parent: HTMLElement,
  original: string,
  changed: string,
  language: EditorLanguage | null,
  label: string,
): { destroy(): void } {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: changed,
      extensions: [
        base(language, label),
        EditorState.readOnly.of(true),
        EditorView.editable.of(false),
        unifiedMergeView({ original, mergeControls: false, highlightChanges: true, collapseUnchanged: { margin: 3 } }),
      ],
    }),
  });
  return { destroy: () => view.destroy() };
}
