// ico-endec ships no types: the ICO container around PNG images (encode) and back (decode, for the tests).
declare module 'ico-endec' {
  interface IconEntry {
    width: number;
    height: number;
    imageType: 'png' | 'bmp';
    imageData: Buffer;
  }
  const icoEndec: { encode(images: Buffer[]): Buffer; decode(ico: Buffer): IconEntry[] };
  export default icoEndec;
}
