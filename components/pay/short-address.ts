/** "2xRn…AvE1": enough of an address or signature to recognise it; the full value goes in a title. */
export const shortAddress = (value: string, edge = 4) => (value.length <= edge * 2 + 1 ? value : `${value.slice(0, edge)}…${value.slice(-edge)}`);
