// ISO 3166-1 alpha-2 codes by continent, after GeoNames (transcontinental countries go where
// most of their people live: Russia Europe, Turkey and the Caucasus Asia).
const CONTINENTS: ReadonlyArray<readonly [string, string, string]> = [
  ['AF', 'Africa', 'DZ AO BJ BW BF BI CM CV CF TD KM CG CD CI DJ EG GQ ER ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU YT MA MZ NA NE NG RE RW SH ST SN SC SL SO ZA SS SD SZ TZ TG TN UG EH ZM ZW'],
  ['AN', 'Antarctica', 'AQ BV GS HM TF'],
  ['AS', 'Asia', 'AF AM AZ BH BD BT BN KH CN CY GE HK IN ID IR IQ IL JP JO KZ KW KG LA LB MO MY MV MN MM NP KP OM PK PS PH QA SA SG KR LK SY TW TJ TH TL TR TM AE UZ VN YE IO CC CX'],
  ['EU', 'Europe', 'AX AL AD AT BY BE BA BG HR CZ DK EE FO FI FR DE GI GR GG HU IS IE IM IT JE XK LV LI LT LU MT MD MC ME NL MK NO PL PT RO RU SM RS SK SI ES SJ SE CH UA GB VA'],
  ['NA', 'North America', 'AI AG AW BS BB BZ BM BQ VG CA KY CR CU CW DM DO SV GL GD GP GT HT HN JM MQ MX MS NI PA PR BL KN LC MF PM VC SX TT TC US VI UM'],
  ['OC', 'Oceania', 'AS AU CK FJ PF GU KI MH FM NR NC NZ NU NF MP PW PG PN WS SB TK TO TV VU WF'],
  ['SA', 'South America', 'AR BO BR CL CO EC FK GF GY PY PE SR UY VE'],
];

const BY_COUNTRY = new Map<string, string>(CONTINENTS.flatMap(([code, name, countries]) => countries.split(' ').map((cc): [string, string] => [cc, `${code}:${name}`])));

/** The stats label of a country code's continent, `'EU:Europe'`, or 'Unknown'. */
export function continentLabel(countryCode: string | undefined): string {
  return BY_COUNTRY.get(countryCode?.trim().toUpperCase() ?? '') ?? 'Unknown';
}
