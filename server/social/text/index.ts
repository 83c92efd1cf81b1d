// The public face of server/social/text/: what code outside the folder uses of it.
export {
  countableLength,
  escapeHtml,
  formatInline,
  formatPlainText,
  graphemeLength,
  htmlToText,
  tokenize,
} from './format.ts';
export { isLanguageCode, languageList } from './languages.ts';
