import { describe, expect, it } from 'vitest';
import { instrument } from './instrument';

/**
 * The step counts must be where a program can spend CPU without end — every loop iteration, every function call —
 * and must not change what the program means. Each case runs the instrumented text (Node has `new Function`; the
 * sandbox does not need it: the text is its module) and counts the ticks.
 */
const run = async (code: string, limit = 1_000_000) => {
  const out = instrument({ code, tick: '__t' });
  if (!out.ok) throw new Error(out.reason);
  let ticks = 0;
  const __t = () => {
    if (++ticks > limit) throw new RangeError('limit');
  };
  const body = new Function('__t', `return (async () => {\n${out.code}\n})();`);
  const value = await body(__t);
  return { value, ticks, code: out.code };
};

describe('instrument', () => {
  it('counts every iteration of each kind of loop, braced or not', async () => {
    expect((await run('let n = 0; for (let i = 0; i < 10; i++) n++; return n;')).ticks).toBe(10);
    expect((await run('let n = 0; while (n < 7) n++; return n;')).ticks).toBe(7);
    expect((await run('let n = 0; do { n++ } while (n < 5); return n;')).ticks).toBe(5);
    expect((await run('let s = 0; for (const x of [1, 2, 3]) s += x; return s;')).value).toBe(6);
    expect((await run('const o = {a: 1, b: 2}; const k = []; for (const key in o) k.push(key); return k;')).ticks).toBe(
      2,
    );
  });

  it('counts every call of a function, arrow, method, generator and async function', async () => {
    const { value, ticks } = await run(`
      function f(x) { return x + 1 }
      const g = (x) => x * 2;
      const h = async (x) => { return x };
      const o = { m(x) { return x }, get p() { return 1 } };
      class C { n(x) { return x } }
      function* gen() { yield 1; yield 2 }
      return [f(1), g(2), await h(3), o.m(4), o.p, new C().n(5), [...gen()].length];
    `);
    expect(value).toEqual([2, 4, 3, 4, 1, 5, 2]);
    expect(ticks).toBe(7);
  });

  it('an endless loop, an endless recursion through promises, and one through a generator all stop at the limit', async () => {
    await expect(run('while (true) {}', 1_000)).rejects.toThrow('limit');
    await expect(run('for (;;);', 1_000)).rejects.toThrow('limit');
    await expect(run('const f = () => Promise.resolve().then(f); await f();', 1_000)).rejects.toThrow('limit');
    await expect(run('function* g() { while (true) yield 1 } for (const x of g()) {}', 1_000)).rejects.toThrow('limit');
  });

  it('keeps what the program means: labels, continue, an arrow returning an object, ASI', async () => {
    const { value } = await run(`
      const pairs = [];
      outer: for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          if (j === 1) continue outer
          pairs.push([i, j])
        }
      }
      const obj = (k) => ({ k })
      return { pairs, obj: obj(1), text: \`a\${[1, 2].map((x) => x + 1).join('')}\` }
    `);
    expect(value).toEqual({
      pairs: [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
      obj: { k: 1 },
      text: 'a23',
    });
  });

  it('top-level await and return are the program body’s; a syntax error is refused with its place', async () => {
    expect((await run('const x = await Promise.resolve(4); return x * 2;')).value).toBe(8);
    const refused = instrument({ code: 'return (1 +;', tick: '__t' });
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/^The program does not parse: .*\(1:\d+\)/) });
  });

  it('refuses a count function name that is not an identifier (it is spliced into the text)', () => {
    expect(instrument({ code: 'return 1', tick: 'x);evil(' })).toMatchObject({ ok: false });
  });
});
