// The part of `stopword`'s API the analysis uses (the package ships no types): its lists, by ISO 639-3 code.
declare module 'stopword' {
  const lists: Readonly<Record<string, readonly string[] | undefined>>;
  export = lists;
}
