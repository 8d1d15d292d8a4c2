/** The statistics subject of a website in the daily counters. */
export function websiteSubject(id: number): string {
  return `website:${id}`;
}
