/**
 * A tiny HTML builder that escapes by default: every value interpolated into `html\`...\`` is
 * escaped unless it is already SafeHtml (built by `html` itself or by a trusted generator such as
 * the QR code SVG). A traveller named `<script>` prints as text.
 */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolation = SafeHtml | string | number | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function render(value: Interpolation): string {
  if (value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map((item: Interpolation) => render(item)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(text);
}

/** Marks trusted markup (generated here, never from data) as safe. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
