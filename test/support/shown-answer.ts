/**
 * Shown answers of the docs' shell examples: a comment `# → <answer>` after a command (on its own line, or at the end
 * of the command's last line) shows what that command prints, and the docs test compares it with what it printed. A
 * ```json block whose info string says `answer`, right after a shell block (prose between), is the shown answer of
 * that block's last command (lastCommand), compared the same way: a worked example shown as a readable JSON block.
 *
 * The command a shown answer belongs to is the whole command just above it: its `\`-continued lines, its quoted
 * lines and its pipes, or a whole `for … done` / `if … fi` loop. The answer may go on over the next comment lines that
 * are indented past the `#` (`#    "options":[…]`); a comment line with one space after `#` is prose again.
 *
 * How a shown answer matches what the command printed (trimmed):
 * - An answer that reads as JSON (with `…` elisions) is a shape, and the output must be ONE JSON value of that shape:
 *   - `…` as a value matches any value; as an array element, any run of elements (none too); as an object member,
 *     any other members. `[…]` is any array, `{…}` any object.
 *   - A string with `…` in it matches any string with the rest around it (`"acme-limo-…"`: any string starting so;
 *     `"…"`: any string).
 *   - Everything else must be equal: every key shown is there with a matching value, an object without a `…` member
 *     has no other keys, an array without a `…` element has exactly the elements shown, in that order; numbers,
 *     strings, `true`, `false` and `null` are the very values. Key order does not matter.
 * - Any other answer is text: `…` matches any run of characters, a run of spaces any run of white space (line breaks
 *   too), and every other character must be the same.
 */

/** One shown answer of a block: the line it starts on (0-based, in the block), the command's lines and its text. */
export interface ShownAnswer {
  line: number;
  commandFrom: number;
  commandTo: number;
  text: string;
}

const SHOWN = /^\s*#\s*→\s?(.*)$/;
const SHOWN_INLINE = /\s#\s*→\s?(.*)$/;
const CONTINUED_ANSWER = /^\s*#\s{2,}(\S.*)$/;

interface LineState {
  /** A command starts on this line (not inside a quote, a continued line, a loop or a parenthesis). */
  starts: boolean;
  /** After this line the shell is back at the top level (the line ends a command or is blank/a comment there). */
  endsTopLevel: boolean;
}

const OPENERS = new Set(["for", "while", "until", "if", "case", "{"]);
const CLOSERS = new Set(["done", "fi", "esac", "}"]);

/** Where commands start in a shell block, read the way bash would at the top level (quotes, continuations, loops). */
export function commandLines(lines: string[]): LineState[] {
  let quote: "'" | '"' | undefined;
  let parens = 0;
  let depth = 0;
  let continued = false;
  return lines.map((line) => {
    const atTop = !quote && parens === 0 && depth === 0 && !continued;
    const blank = /^\s*(#.*)?$/.test(line);
    const starts = atTop && !blank;
    let word = "";
    let wordStart = true;
    const endWord = () => {
      if (OPENERS.has(word)) depth++;
      else if (CLOSERS.has(word)) depth = Math.max(0, depth - 1);
      word = "";
    };
    let i = 0;
    for (; i < line.length; i++) {
      const c = line[i];
      if (quote === "'") {
        if (c === "'") quote = undefined;
        continue;
      }
      if (c === "\\") {
        i++;
        wordStart = false;
        continue;
      }
      if (quote === '"') {
        if (c === '"') quote = undefined;
        continue;
      }
      if (c === "'" || c === '"') {
        quote = c;
        wordStart = false;
        word = "\0";
        continue;
      }
      if (c === "#" && wordStart) break;
      if (c === "(") parens++;
      else if (c === ")") parens = Math.max(0, parens - 1);
      if (/[\s;&|()]/.test(c)) {
        endWord();
        wordStart = true;
      } else {
        if (wordStart) word = "";
        word += c;
        wordStart = false;
      }
    }
    if (!quote) endWord();
    const code = line.slice(0, i).trimEnd();
    continued = !quote && (/\\$/.test(line) || /(\||&&|\|\|)$/.test(code));
    return { starts, endsTopLevel: !quote && parens === 0 && depth === 0 && !continued };
  });
}

/** The shown answers of one shell block, each with the command it belongs to. */
export function shownAnswers(code: string): ShownAnswer[] {
  const lines = code.split("\n");
  const states = commandLines(lines);
  const out: ShownAnswer[] = [];
  let lastStart = -1;
  for (let i = 0; i < lines.length; i++) {
    if (states[i].starts) lastStart = i;
    const own = SHOWN.exec(lines[i]);
    const inline = own ? undefined : SHOWN_INLINE.exec(lines[i]);
    if (!own && !(inline && states[i].endsTopLevel)) continue;
    const commandTo = own ? i - 1 : i;
    if (lastStart < 0 || (own && i > 0 && !states[i - 1].endsTopLevel))
      throw new Error(`line ${i + 1}: a shown answer (# →) must follow a whole command`);
    const text = [(own ?? inline)![1]];
    let j = i + 1;
    for (; j < lines.length && own && CONTINUED_ANSWER.test(lines[j]); j++) text.push(CONTINUED_ANSWER.exec(lines[j])![1]);
    out.push({ line: i, commandFrom: lastStart, commandTo, text: text.join("\n").trim() });
    i = j - 1;
  }
  return out;
}

/**
 * The last command of a shell block (its first and last line), whose output a ```json answer block right after the
 * block shows; undefined when the block runs no command.
 */
export function lastCommand(code: string): { commandFrom: number; commandTo: number } | undefined {
  const lines = code.split("\n");
  const states = commandLines(lines);
  const from = states.findLastIndex((s) => s.starts);
  if (from < 0) return undefined;
  let to = from;
  while (to < lines.length - 1 && !states[to].endsTopLevel) to++;
  return { commandFrom: from, commandTo: to };
}

type Pattern =
  | { kind: "any" }
  | { kind: "rest" }
  | { kind: "string"; parts: string[] }
  | { kind: "literal"; value: number | boolean | null }
  | { kind: "array"; items: Pattern[] }
  | { kind: "object"; members: Array<[string, Pattern]>; open: boolean };

const ELLIPSIS = "…";

/** Reads a shown answer as a JSON shape; undefined when it is not one (then it is text). */
export function parseShape(text: string): Pattern | undefined {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`not a JSON shape at ${at}`);
  };
  const space = () => {
    while (at < text.length && /\s/.test(text[at])) at++;
  };
  const eat = (s: string) => {
    space();
    if (!text.startsWith(s, at)) fail();
    at += s.length;
  };
  const peek = (s: string) => (space(), text.startsWith(s, at));
  const string = (): string => {
    space();
    const m = /^"(?:[^"\\\n]|\\.)*"/.exec(text.slice(at));
    if (!m) return fail();
    at += m[0].length;
    return JSON.parse(m[0]);
  };
  const value = (inArray: boolean): Pattern => {
    space();
    if (peek(ELLIPSIS)) {
      at += ELLIPSIS.length;
      return { kind: inArray ? "rest" : "any" };
    }
    if (peek("{")) {
      at++;
      const members: Array<[string, Pattern]> = [];
      let open = false;
      if (peek("}")) return at++, { kind: "object", members, open };
      do {
        if (peek(ELLIPSIS)) {
          at += ELLIPSIS.length;
          open = true;
          continue;
        }
        const key = string();
        eat(":");
        members.push([key, value(false)]);
      } while (peek(",") && ++at);
      eat("}");
      return { kind: "object", members, open };
    }
    if (peek("[")) {
      at++;
      const items: Pattern[] = [];
      if (peek("]")) return at++, { kind: "array", items };
      do items.push(value(true));
      while (peek(",") && ++at);
      eat("]");
      return { kind: "array", items };
    }
    if (peek('"')) {
      const s = string();
      return { kind: "string", parts: s.split(ELLIPSIS) };
    }
    const m = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)(?![\w.])/.exec(text.slice(at));
    if (!m) return fail();
    at += m[0].length;
    return { kind: "literal", value: JSON.parse(m[0]) };
  };
  try {
    const shape = value(false);
    space();
    return at === text.length ? shape : undefined;
  } catch {
    return undefined;
  }
}

const show = (v: unknown) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 77)}…` : s;
};

/** Where `value` differs from `shape` (a path and what differs), or undefined when it matches. */
function differs(shape: Pattern, value: unknown, path: string): string | undefined {
  switch (shape.kind) {
    case "any":
    case "rest":
      return undefined;
    case "literal":
      return Object.is(shape.value, value) ? undefined : `${path}: shown ${show(shape.value)}, answered ${show(value)}`;
    case "string": {
      if (typeof value !== "string") return `${path}: shown a string, answered ${show(value)}`;
      const re = new RegExp(`^${shape.parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*")}$`);
      return re.test(value) ? undefined : `${path}: shown ${show(shape.parts.join(ELLIPSIS))}, answered ${show(value)}`;
    }
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `${path}: shown an object, answered ${show(value)}`;
      for (const [key, member] of shape.members) {
        if (!Object.hasOwn(value, key)) return `${path}.${key}: shown, but not in the answer`;
        const d = differs(member, (value as Record<string, unknown>)[key], `${path}.${key}`);
        if (d) return d;
      }
      if (!shape.open) {
        const extra = Object.keys(value).filter((k) => !shape.members.some(([key]) => key === k));
        if (extra.length) return `${path}: the answer has members the shown answer has not (and no …): ${extra.join(", ")}`;
      }
      return undefined;
    }
    case "array": {
      if (!Array.isArray(value)) return `${path}: shown an array, answered ${show(value)}`;
      return arrayDiffers(shape.items, value, path);
    }
  }
}

/** An array's elements against its shown elements, `…` standing for any run of them (the first way that fits). */
function arrayDiffers(items: Pattern[], values: unknown[], path: string): string | undefined {
  let first: string | undefined;
  const fits = (i: number, v: number): boolean => {
    if (i === items.length) {
      if (v === values.length) return true;
      first ??= `${path}: the answer has ${values.length} elements, more than shown`;
      return false;
    }
    if (items[i].kind === "rest") {
      for (let k = v; k <= values.length; k++) if (fits(i + 1, k)) return true;
      return false;
    }
    if (v === values.length) {
      first ??= `${path}: the answer has ${values.length} elements, fewer than shown`;
      return false;
    }
    const d = differs(items[i], values[v], `${path}[${v}]`);
    if (d) {
      first ??= d;
      return false;
    }
    return fits(i + 1, v + 1);
  };
  return fits(0, 0) ? undefined : first;
}

/** Whether text matches a text answer: `…` any run of characters, white space any white space. */
function textDiffers(shown: string, output: string): string | undefined {
  const source = shown
    .trim()
    .split(/(\s*…\s*|\s+)/)
    .map((part) => (part.trim() === ELLIPSIS ? "[\\s\\S]*" : /^\s+$/.test(part) ? "\\s+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`).test(output) ? undefined : `shown ${show(shown)}, answered ${show(output)}`;
}

/** Why `output` (what the command printed) is not the answer `shown`, or undefined when it is. */
export function answerDiffers(shown: string, output: string): string | undefined {
  const printed = output.trim();
  const shape = parseShape(shown);
  if (!shape) return textDiffers(shown, printed);
  let value: unknown;
  try {
    value = JSON.parse(printed);
  } catch {
    return `shown JSON, answered ${printed ? show(printed) : "nothing"}`;
  }
  return differs(shape, value, "$");
}
