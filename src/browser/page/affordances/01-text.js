  // ---------------------------------------------------------------------------------------------
  // Text: one normaliser, tokenizer and set of similarities, for this engine and for binding.js
  // and heal.js, which read it as __ouroPcd.text. A label's forms: norm (whitespace collapsed),
  // key (lower case, quotes and end punctuation aside: a label as typed), alnum (letters and
  // digits only), words (alnum's words), terms (search terms: split at punctuation, a plural 's'
  // dropped).
  const SPLIT = /[\s!-\/:-@\[-`{-~\u00a0-\u00bf\u2000-\u206f\u3000-\u303f]+/;
  const TEXT = (() => {
    const key = s => norm(s).toLowerCase().replace(/^[\s"'“”‘’«»(\[]+|[\s"'“”‘’«»)\]:*.!?,…]+$/gu, '');
    const alnum = s => norm(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    const words = s => { const a = alnum(s); return a ? a.split(' ') : []; };
    const terms = s => {
      const out = [];
      for (const w of lower(String(s == null ? '' : s)).split(SPLIT)) if (w) out.push(w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);
      return out;
    };
    const trigrams = s => {
      const t = ' ' + alnum(s) + ' ';
      const out = new Set();
      for (let i = 0; i + 3 <= t.length; i++) out.add(t.slice(i, i + 3));
      return out;
    };
    const common = (a, b) => { let n = 0; for (const g of a) if (b.has(g)) n++; return n; };
    // Two sets: shared over all (Jaccard), and twice shared over both sizes (Dice).
    const jaccard = (a, b) => { if (!a.size || !b.size) return 0; const n = common(a, b); return n / (a.size + b.size - n); };
    const dice = (a, b) => (a.size + b.size ? 2 * common(a, b) / (a.size + b.size) : 0);
    // How alike two texts are: 1 the same (case and punctuation aside) … 0; the better of their
    // words' and (a little discounted) their trigrams' Dice.
    const similarity = (a, b) => {
      const ka = alnum(a), kb = alnum(b);
      if (!ka || !kb) return 0;
      if (ka === kb) return 1;
      return Math.max(dice(new Set(words(a)), new Set(words(b))), 0.9 * dice(trigrams(a), trigrams(b)));
    };
    // Within one edit, for words of 4+ letters (typos: "serch", "sigin").
    const editClose = (a, b) => {
      if (Math.abs(a.length - b.length) > 1 || a.length < 4) return false;
      let i = 0, j = 0, edits = 0;
      while (i < a.length && j < b.length) {
        if (a[i] === b[j]) { i++; j++; continue; }
        if (++edits > 1) return false;
        if (a.length > b.length) i++; else if (b.length > a.length) j++; else { i++; j++; }
      }
      return edits + (a.length - i) + (b.length - j) <= 1;
    };
    return Object.freeze({ norm, key, alnum, words, terms, trigrams, jaccard, dice, similarity, editClose });
  })();
  const { terms: tokenize, trigrams, jaccard: trigramSim, editClose } = TEXT;
