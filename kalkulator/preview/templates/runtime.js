// kalkulator's formula runtime: the scalar semantics of kalkulator/engine/expr.py (Evaluate), for trees rendered by
// kalkulator/engine/js.py. Values: number, string, boolean, null (blank), Err (an error value), array (a catalog column).
// No formula lives here, only the operators and functions every formula is built from.
"use strict";
const K = (() => {
  class Err {
    constructor(code) { this.code = code; }
    toString() { return this.code; }
  }
  const NA = new Err("#N/A"), DIV0 = new Err("#DIV/0!"), VALUE = new Err("#VALUE!"), REF = new Err("#REF!");
  const NUM = new Err("#NUM!");
  const isErr = (v) => v instanceof Err;
  const firstError = (...vs) => vs.find(isErr);
  // Python's float(str): optional sign, digits with an optional point and exponent, or inf/infinity/nan.
  const FLOAT = /^[+-]?((\d+(_\d+)*)(\.(\d+(_\d+)*)?)?|\.\d+(_\d+)*)([eE][+-]?\d+(_\d+)*)?$/;
  const SPECIAL = /^[+-]?(inf|infinity|nan)$/i;

  function number(v) {  // Excel's arithmetic coercion: blank → 0, TRUE → 1, numeric text → number
    if (isErr(v)) return v;
    if (v === null) return 0;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (typeof v === "number") return v;
    if (typeof v === "string") {
      const t = v.trim();
      if (FLOAT.test(t)) return Number(t.replace(/_/g, ""));
      if (SPECIAL.test(t)) return /nan/i.test(t) ? NaN : t[0] === "-" ? -Infinity : Infinity;
      return VALUE;
    }
    return VALUE;
  }

  function arith(fn) {
    return (a, b) => {
      const x = number(a), y = number(b);
      const err = firstError(x, y);
      if (err) return err;
      const r = fn(x, y);
      if (isErr(r)) return r;
      return Number.isFinite(r) ? r : NUM;  // Excel has no infinities: an overflow is #NUM!
    };
  }
  const pow = (x, y) => {
    if (x === 0 && y < 0) return DIV0;
    if (x < 0 && !Number.isInteger(y)) return NUM;
    return x ** y;
  };

  function pyRepr(x) {  // Python's repr of a float that is not a whole number
    const [mant, exp] = Math.abs(x).toExponential().split("e");
    const digits = mant.replace(".", ""), e = Number(exp), sign = x < 0 ? "-" : "";
    if (e < -4 || e >= 16) {
      const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
      return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
    const whole = digits.slice(0, e + 1).padEnd(e + 1, "0"), frac = digits.slice(e + 1);
    return `${sign}${whole}.${frac || "0"}`;
  }

  function textOf(v) {  // & : blank → "", TRUE → "TRUE", whole numbers without decimals
    if (isErr(v)) return v;
    if (v === null) return "";
    if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
    if (typeof v === "number") return Number.isInteger(v) ? BigInt(v).toString() : pyRepr(v);
    return String(v);
  }

  function rank(v) {  // Excel's order: numbers < text < booleans; text case-insensitive
    if (v === null) return [0, 0];
    if (typeof v === "boolean") return [2, v ? 1 : 0];
    if (typeof v === "string") return [1, v.toLowerCase()];
    return [0, v];
  }
  const cmpRank = (a, b) => (a[0] !== b[0] ? a[0] - b[0] : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

  function compare(test) {
    return (a, b) => {
      const err = firstError(a, b);
      if (err) return err;
      if (a === null && typeof b === "string") a = "";
      if (b === null && typeof a === "string") b = "";
      return test(cmpRank(rank(a), rank(b)));
    };
  }

  function scalars(args) {  // columns flatten like ranges: blanks, text and booleans inside them are skipped
    const out = [];
    for (const a of args) {
      if (Array.isArray(a)) out.push(...a.filter((v) => typeof v === "number" || isErr(v)));
      else out.push(a);
    }
    return out;
  }
  function numbers(args) {
    const out = [];
    for (const v of scalars(args)) {
      const n = number(v);
      if (isErr(n)) return n;
      out.push(n);
    }
    return out;
  }

  // a > 0 to 15 significant digits as [mantissa, exponent], a tie to even as Python's "%.15g" rounds it (JS's
  // toExponential takes a tie away from zero). A tie needs exactly 16 significant digits ending in 5, so the
  // exact value (toFixed gives it to 100 decimals) tells.
  function snap15(a) {
    const [mant, exp] = a.toExponential(14).split("e");
    if (a >= 1e21) return [mant, exp];
    const sig = a.toFixed(100).replace(/0+$/, "").replace(".", "").replace(/^0+/, "");
    if (sig.length === 16 && sig[15] === "5" && Number(sig[14]) % 2 === 0) {
      const down = a.toExponential(15).split("e");  // exact here: 16 digits hold the value
      return [down[0].slice(0, -1), down[1]];
    }
    return [mant, exp];
  }

  // ROUND family: on the value shown to 15 significant digits, in decimal; mode "half" (away from zero),
  // "up" (away from zero) or "down" (toward zero). The result is the double nearest the decimal result.
  function xlRound(x, digits, mode) {
    const d = Math.trunc(digits);
    if (x === 0) return 0;
    const [mant, exp] = snap15(Math.abs(x));
    const D = mant.replace(".", "");  // 15 digits; the value is 0.D × 10^(e + 1)
    const k = Number(exp) + 1 + d;  // digits kept before the rounding point
    if (k >= D.length) return (x < 0 ? -1 : 1) * Number(`${D}e${Number(exp) - 14}`);
    const kept = k > 0 ? D.slice(0, k) : "0";
    const dropped = k >= 0 ? D.slice(k) : "0".repeat(-k) + D;
    let inc = false;
    if (mode === "half") inc = dropped[0] >= "5";
    else if (mode === "up") inc = /[1-9]/.test(dropped);
    const v = Number(`${(BigInt(kept) + (inc ? 1n : 0n)).toString()}e${-d}`);
    return x < 0 ? -v : v;
  }
  const rounder = (mode) => (x, digits) => {
    const xs = numbers([x, digits]);
    return isErr(xs) ? xs : xlRound(xs[0], xs[1], mode);
  };

  function truth(v) {
    if (isErr(v)) return v;
    if (typeof v === "string") return VALUE;
    if (Array.isArray(v)) return v.length > 0;
    return Boolean(v);
  }
  const logical = (all) => (...args) => {
    const ts = args.map(truth);
    const err = ts.find(isErr);
    if (err) return err;
    return all ? ts.every(Boolean) : ts.some(Boolean);
  };

  function index(column, row) {
    const n = number(row);
    if (isErr(n)) return n;
    const i = Math.trunc(n);
    if (!Array.isArray(column) || i < 1 || i > column.length) return REF;
    const v = column[i - 1];
    return v === null ? 0 : v;
  }
  function match(key, column) {
    if (isErr(key)) return key;
    if (key === null || !Array.isArray(column)) return NA;
    const want = rank(key);
    for (let i = 0; i < column.length; i++) {
      if (column[i] !== null && cmpRank(rank(column[i]), want) === 0) return i + 1;
    }
    return NA;
  }
  const minmax = (pick) => (...args) => {
    const xs = numbers(args);
    return isErr(xs) ? xs : xs.length ? pick(...xs) : 0;
  };
  const unary = (fn) => (x) => {
    const n = number(x);
    return isErr(n) ? n : fn(n);
  };

  const FUNCS = {
    MIN: minmax(Math.min),
    MAX: minmax(Math.max),
    ROUND: rounder("half"),
    ROUNDUP: rounder("up"),
    ROUNDDOWN: rounder("down"),
    AND: logical(true),
    OR: logical(false),
    NOT: (v) => { const t = truth(v); return isErr(t) ? t : !t; },
    ABS: unary(Math.abs),
    LN: unary((n) => (n <= 0 ? NUM : Math.log(n))),  // Excel: LN of 0 or less is #NUM!
    INDEX: index,
    MATCH: match,
    IFERROR: (v, fallback) => (isErr(v) ? fallback : v),
    ISBLANK: (v) => v === null,
  };

  function fn(name, seesErrors) {  // a function of the whitelist; most propagate their arguments' first error
    const impl = FUNCS[name];
    if (!impl) throw new Error(`no JavaScript for ${name}`);
    return seesErrors ? impl : (...args) => firstError(...args) || impl(...args);
  }

  function iff(cond, then, other) {  // lazy: only the branch taken is computed
    if (isErr(cond)) return cond;
    if (typeof cond === "string") return VALUE;
    const v = truth(cond) ? then() : other();
    return v === null ? 0 : v;
  }

  return {
    Err, NA, DIV0, VALUE, REF, NUM, isErr, fn, iff, textOf,
    neg: (v) => { const n = number(v); return isErr(n) ? n : -n; },
    add: arith((x, y) => x + y),
    sub: arith((x, y) => x - y),
    mul: arith((x, y) => x * y),
    div: arith((x, y) => (y === 0 ? DIV0 : x / y)),
    pow: arith(pow),
    cat: (a, b) => { const x = textOf(a), y = textOf(b); return firstError(x, y) || x + y; },
    eq: compare((c) => c === 0),
    ne: compare((c) => c !== 0),
    lt: compare((c) => c < 0),
    le: compare((c) => c <= 0),
    gt: compare((c) => c > 0),
    ge: compare((c) => c >= 0),
    // One scenario through a compiled program (kalkulator/engine/js.py), as kalkulator.engine.graph.Graph.evaluate does it.
    evaluate(program, settings, columns, lang) {
      const env = {};
      for (const name of program.overridable) env[name + "__set"] = name in settings ? settings[name] : null;
      for (const [name, kind, body] of program.steps) {
        if (kind === "input") env[name] = name in settings ? settings[name] : body;
        else if (kind === "formula" && name in settings) env[name] = settings[name];
        else env[name] = body(env, columns, lang);
      }
      return env;
    },
  };
})();
