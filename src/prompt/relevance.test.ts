import { describe, expect, it } from 'vitest';
import { score, stem, terms } from './relevance';

describe('terms', () => {
  it('lower-cased words and numbers, without stopwords or one-character words, in any script', () => {
    expect(terms('What is the Café’s API v2 for a 3D plan?')).toEqual(['café', 'api', 'v2', '3d', 'plan']);
    expect(terms('Показать отчёт 2024')).toEqual(['показать', 'отчёт', '2024']);
    expect(terms('how do I do it?')).toEqual([]);
  });
});

describe('stem', () => {
  it('the documented pairs meet: guideline/guidelines, estimate/estimates', () => {
    expect(stem('guidelines')).toBe(stem('guideline'));
    expect(stem('estimates')).toBe(stem('estimate'));
    expect(stem('invoices')).toBe(stem('invoice'));
  });

  // Was a bug: "planning" stemmed to "plann".
  it('"planning" and "planned" match "plan"; a doubled l, s or z stays ("falling" is "fall")', () => {
    expect(stem('planning')).toBe(stem('plan'));
    expect(stem('planned')).toBe(stem('plan'));
    expect(stem('running')).toBe(stem('run'));
    expect(stem('falling')).toBe(stem('fall'));
    expect(stem('passing')).toBe(stem('pass'));
  });

  it('never stems a word to nothing', () => {
    expect(stem('es')).toBe('es');
    expect(stem('s')).toBe('s');
  });
});

describe('score', () => {
  const item = {
    fields: [
      ['Deployment guidelines', 3],
      ['docs://deploy/guide', 2],
      [undefined, 5],
      ['How to deploy the service: guidelines and checklists', 1],
    ] as Array<[string | undefined, number]>,
  };

  it('adds the weight of each field a query word appears in, once per field', () => {
    expect(score(['guideline'], item)).toBe(3 + 1);
    expect(score(['checklist'], item)).toBe(1);
    expect(score(['guideline', 'guideline'], item)).toBe(4); // a repeated query word counts once
    expect(score(new Set(['deploy', 'checklist']), item)).toBe(2 + 1 + 1); // "deploy" is in the URI and the description
  });

  it('no query, or no matching word: 0', () => {
    expect(score([], item)).toBe(0);
    expect(score(terms('what is it?'), item)).toBe(0);
    expect(score(['invoice'], item)).toBe(0);
  });
});
