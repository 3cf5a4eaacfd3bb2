/** Alt text that is only the picture's file name (what PowerPoint wrote before 2019, and some converters) says nothing. */
const FILE_NAME = /^[\w .-]+\.(?:jpe?g|png|gif|svg|emf|wmf|bmp|webp|tiff?)$/i;

/** A picture's alt text worth keeping in the text: trimmed, and neither empty nor a file name. */
export function meaningfulAlt(alt: string | undefined): string | undefined {
  const trimmed = alt?.trim() ?? "";
  return trimmed === "" || FILE_NAME.test(trimmed) ? undefined : trimmed;
}
