import jsQRModule from 'jsqr';
import * as mupdf from 'mupdf';

/**
 * Reading PDFs back in tests, the way a person or a scanner would: the text of every page, the
 * number and size of pages, the tagged-PDF markers, and every QR code printed (decoded from the
 * rendered pixels, as the driver app's camera would).
 */
// jsqr is CommonJS typed as an ES default export; under NodeNext the function is one level down.
const jsQR = jsQRModule.default;

function openPdf(bytes: Uint8Array): mupdf.PDFDocument {
  const document = mupdf.Document.openDocument(bytes, 'application/pdf').asPDF();
  if (!document) throw new Error('not a PDF document');
  return document;
}

export function pdfPageCount(bytes: Uint8Array): number {
  return openPdf(bytes).countPages();
}

/** The text of all pages, in reading order, pages separated by a form feed. */
export function pdfText(bytes: Uint8Array): string {
  return pdfPageTexts(bytes).join('\f');
}

/** The text of each page, in reading order. */
export function pdfPageTexts(bytes: Uint8Array): string[] {
  const document = openPdf(bytes);
  const pages: string[] = [];
  for (let index = 0; index < document.countPages(); index += 1) {
    pages.push(document.loadPage(index).toStructuredText('preserve-whitespace').asText());
  }
  return pages;
}

/** Page sizes in millimetres (A4 is 210 × 297). */
export function pdfPageSizesMm(bytes: Uint8Array): { width: number; height: number }[] {
  const document = openPdf(bytes);
  const sizes: { width: number; height: number }[] = [];
  for (let index = 0; index < document.countPages(); index += 1) {
    const [x0, y0, x1, y1] = document.loadPage(index).getBounds();
    sizes.push({ width: ((x1 - x0) * 25.4) / 72, height: ((y1 - y0) * 25.4) / 72 });
  }
  return sizes;
}

/** Whether the catalog declares a tagged PDF: /MarkInfo << /Marked true >> and a /StructTreeRoot. */
export function pdfIsTagged(bytes: Uint8Array): boolean {
  const root = openPdf(bytes).getTrailer().get('Root');
  const marked = root.get('MarkInfo').get('Marked');
  return !root.get('StructTreeRoot').isNull() && marked.isBoolean() && marked.asBoolean();
}

/** The document language declared in the catalog (/Lang), e.g. "ar". */
export function pdfLanguage(bytes: Uint8Array): string | null {
  return openPdf(bytes).getLanguage();
}

/** Resolutions a code is read at, in order: jsQR misses a code at some scales and reads it at others. */
const QR_SCAN_DPIS = [150, 200, 300, 100];
/** A QR symbol is at least this wide on paper (points); smaller square shapes are something else. */
const MIN_QR_POINTS = 40;

/**
 * Every QR code in the document, page by page, in reading order. The codes are found where a
 * scanner would look: each square, solidly black vector shape is cut out of the rendered page
 * (with a margin for the quiet zone) and decoded on its own, so several codes on a page never
 * confuse each other and plain text is never mistaken for one.
 */
export function decodeQrCodes(bytes: Uint8Array): string[] {
  return decodeQrCodesByPage(bytes).flat();
}

/** The QR codes of each page (decodeQrCodes), one list per page in page order. */
export function decodeQrCodesByPage(bytes: Uint8Array): string[][] {
  const document = openPdf(bytes);
  const pages: string[][] = [];
  for (let index = 0; index < document.countPages(); index += 1) {
    const found: string[] = [];
    pages.push(found);
    const page = document.loadPage(index);
    const rasters = new Map<number, Raster>();
    const rasterAt = (dpi: number) => rasters.get(dpi) ?? rasters.set(dpi, rasterOf(page, dpi)).get(dpi)!;
    for (const area of squareBlackShapes(page)) {
      for (const dpi of QR_SCAN_DPIS) {
        const code = jsQR(...cropOf(rasterAt(dpi), area, dpi), { inversionAttempts: 'dontInvert' });
        if (code) {
          found.push(code.data);
          break;
        }
      }
    }
  }
  return pages;
}

type Rect = [number, number, number, number];

/** Bounds of a filled shape take no stroke width. */
const FILL_ONLY = new mupdf.StrokeState({ lineCap: 'Butt', lineJoin: 'Miter', lineWidth: 0, miterLimit: 10 });

/**
 * Bounds (points) of the black shapes, filled or stroked, that are square and big enough to be a
 * QR symbol (the project's codes are stroked rows; other generators fill their modules).
 */
function squareBlackShapes(page: mupdf.PDFPage): Rect[] {
  const areas: Rect[] = [];
  const consider = (bounds: Rect, color: number[]) => {
    if (!color.every((component) => component < 0.2)) return;
    const [x0, y0, x1, y1] = bounds;
    const width = x1 - x0;
    const height = y1 - y0;
    if (width >= MIN_QR_POINTS && Math.abs(width - height) <= width * 0.05) areas.push(bounds);
  };
  const device = new mupdf.Device({
    fillPath(path, _evenOdd, ctm, _colorspace, color) {
      consider(path.getBounds(FILL_ONLY, ctm), color);
    },
    strokePath(path, stroke, ctm, _colorspace, color) {
      consider(path.getBounds(stroke, ctm), color);
    },
  });
  page.run(device, mupdf.Matrix.identity);
  device.close();
  return areas.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

interface Raster {
  rgb: Uint8ClampedArray;
  width: number;
  height: number;
  stride: number;
}

function rasterOf(page: mupdf.PDFPage, dpi: number): Raster {
  // Rendered opaque (an alpha channel would leave the unpainted page transparent black).
  const pixmap = page.toPixmap(mupdf.Matrix.scale(dpi / 72, dpi / 72), mupdf.ColorSpace.DeviceRGB, false);
  return {
    rgb: pixmap.getPixels(),
    width: pixmap.getWidth(),
    height: pixmap.getHeight(),
    stride: pixmap.getStride(),
  };
}

/** The area (plus a quiet-zone margin) cut out of the raster as RGBA, the form jsQR reads. */
function cropOf(raster: Raster, [x0, y0, x1, y1]: Rect, dpi: number): [Uint8ClampedArray, number, number] {
  const scale = dpi / 72;
  const margin = (x1 - x0) * 0.12;
  const left = Math.max(0, Math.floor((x0 - margin) * scale));
  const top = Math.max(0, Math.floor((y0 - margin) * scale));
  const right = Math.min(raster.width, Math.ceil((x1 + margin) * scale));
  const bottom = Math.min(raster.height, Math.ceil((y1 + margin) * scale));
  const width = right - left;
  const height = bottom - top;
  const rgba = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const from = (top + y) * raster.stride + (left + x) * 3;
      const to = (y * width + x) * 4;
      rgba[to] = raster.rgb[from]!;
      rgba[to + 1] = raster.rgb[from + 1]!;
      rgba[to + 2] = raster.rgb[from + 2]!;
    }
  }
  return [rgba, width, height];
}
