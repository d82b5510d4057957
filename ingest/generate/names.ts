/**
 * Person names: a few hundred first and last names of diverse origin, some accented,
 * used for contacts and for surname-based company and brokerage names.
 */
import type { Rng } from './prng.ts';

const words = (s: string): readonly string[] => Object.freeze(s.trim().split(/\s*\|\s*/));

export const FIRST_NAMES = words(`
James | Mary | John | Patricia | Robert | Jennifer | Michael | Linda | William | Elizabeth | David | Barbara | Richard | Susan |
Joseph | Jessica | Thomas | Sarah | Charles | Karen | Christopher | Lisa | Daniel | Nancy | Matthew | Betty | Anthony | Sandra |
Mark | Margaret | Donald | Ashley | Steven | Kimberly | Paul | Emily | Andrew | Donna | Joshua | Michelle | Kenneth | Carol |
Kevin | Amanda | Brian | Melissa | George | Deborah | Timothy | Stephanie | Ronald | Rebecca | Jason | Sharon | Edward | Laura |
Jeffrey | Cynthia | Ryan | Dorothy | Jacob | Amy | Gary | Kathleen | Nicholas | Angela | Eric | Shirley | Jonathan | Brenda |
Stephen | Emma | Larry | Anna | Justin | Pamela | Scott | Nicole | Brandon | Samantha | Benjamin | Katherine | Samuel | Christine |
Gregory | Debra | Alexander | Rachel | Patrick | Carolyn | Frank | Janet | Raymond | Maria | Jack | Olivia | Dennis | Heather |
Jerry | Helen | Tyler | Catherine | Aaron | Diane | Jose | Julie | Adam | Victoria | Nathan | Joyce | Henry | Lauren | Zachary |
Kelly | Douglas | Christina | Peter | Ruth | Kyle | Joan | Noah | Virginia | Ethan | Judith | Jeremy | Evelyn | Christian | Hannah |
Walter | Andrea | Keith | Megan | Austin | Cheryl | Roger | Jacqueline | Terry | Madison | Sean | Teresa | Gerald | Abigail |
Carl | Sophia | Dylan | Martha | Harold | Sara | Jordan | Gloria | Jesse | Janice | Bryan | Kathryn | Lawrence | Ann | Arthur |
Isabella | Gabriel | Judy | Bruce | Charlotte | Logan | Julia | Billy | Grace | Joe | Amber | Alan | Alice | Juan | Jean |
Elijah | Denise | Willie | Frances | Albert | Danielle | Wayne | Marilyn | Randy | Natalie | Mason | Beverly | Vincent | Diana |
Liam | Brittany | Roy | Theresa | Bobby | Kayla | Caleb | Alexis | Bradley | Doris | Russell | Lori | Lucas | Tiffany |
José | Zoë | Chloé | Renée | André | Inés | Sofía | María | Raúl | Jesús | Ángel | Héctor | Joaquín | Björn | Søren | Zoé |
Noémie | Céline | Hélène | François | Jérôme | Agnès | Mónica | Verónica | Adrián | Nicolás | Martín | Sebastián | Iñaki |
Begoña | Dário | João | Conceição | Łukasz | Małgorzata | Jürgen | Jörg | Åsa | Mikaël | Anaïs | Maëlle | Aurélie |
Carlos | Luis | Miguel | Javier | Alejandro | Fernando | Diego | Ricardo | Eduardo | Roberto | Alejandra | Gabriela | Daniela |
Valeria | Camila | Lucía | Elena | Rosa | Carmen | Guadalupe | Marisol | Yesenia | Xiomara | Ximena | Esperanza | Dolores |
Wei | Jing | Li | Hui | Ming | Xiao | Mei | Jun | Hiroshi | Yuki | Kenji | Aiko | Haruto | Sakura | Min-jun | Ji-woo | Seo-yeon |
Hyun | Priya | Anjali | Rahul | Arjun | Deepak | Sanjay | Vikram | Neha | Pooja | Aarav | Ananya | Ravi | Sunita | Lakshmi |
Mohammed | Ahmed | Fatima | Aisha | Omar | Yusuf | Layla | Hassan | Mariam | Tariq | Nadia | Karim | Samir | Leila |
Thanh | Linh | Minh | Quang | Huong | Tuan | Duc | Lan | Kwame | Ama | Kofi | Chinedu | Ngozi | Oluwaseun | Adaeze | Tunde |
DeShawn | Jamal | Tyrone | Latoya | Keisha | Imani | Malik | Darnell | Aaliyah | Jasmine | Trevon | Shanice | Andre |
Dmitri | Olga | Svetlana | Ivan | Natalia | Sergei | Katya | Anastasia | Pavel | Irina | Giovanni | Giulia | Marco | Francesca |
Matteo | Alessandra | Siobhan | Niamh | Ciarán | Saoirse | Eoin | Declan | Aoife | Mairead | Erik | Ingrid | Lars | Astrid |
Mary-Kate | Anne-Marie | Jean-Luc | Mary-Beth | Jo-Ann | Jean-Pierre | Ana-Lucía
`);

export const LAST_NAMES = words(`
Smith | Johnson | Williams | Brown | Jones | Garcia | Miller | Davis | Rodriguez | Martinez | Hernandez | Lopez | Gonzalez |
Wilson | Anderson | Thomas | Taylor | Moore | Jackson | Martin | Lee | Perez | Thompson | White | Harris | Sanchez | Clark |
Ramirez | Lewis | Robinson | Walker | Young | Allen | King | Wright | Scott | Torres | Nguyen | Hill | Flores | Green | Adams |
Nelson | Baker | Hall | Rivera | Campbell | Mitchell | Carter | Roberts | Gomez | Phillips | Evans | Turner | Diaz | Parker |
Cruz | Edwards | Collins | Reyes | Stewart | Morris | Morales | Murphy | Cook | Rogers | Gutierrez | Ortiz | Morgan | Cooper |
Peterson | Bailey | Reed | Kelly | Howard | Ramos | Kim | Cox | Ward | Richardson | Watson | Brooks | Chavez | Wood | James |
Bennett | Gray | Mendoza | Ruiz | Hughes | Price | Alvarez | Castillo | Sanders | Patel | Myers | Long | Ross | Foster | Jimenez |
Powell | Jenkins | Perry | Russell | Sullivan | Bell | Coleman | Butler | Henderson | Barnes | Gonzales | Fisher | Vasquez |
Simmons | Romero | Jordan | Patterson | Alexander | Hamilton | Graham | Reynolds | Griffin | Wallace | Moreno | West | Cole |
Hayes | Bryant | Herrera | Gibson | Ellis | Tran | Medina | Aguilar | Stevens | Murray | Ford | Castro | Marshall | Owens |
Harrison | Fernandez | McDonald | Woods | Washington | Kennedy | Wells | Vargas | Henry | Chen | Freeman | Webb | Tucker | Guzman |
Burns | Crawford | Olson | Simpson | Porter | Hunter | Gordon | Mendez | Silva | Shaw | Snyder | Mason | Dixon | Munoz | Hunt |
Hicks | Holmes | Palmer | Wagner | Black | Robertson | Boyd | Rose | Stone | Salazar | Fox | Warren | Mills | Meyer | Rice |
Schmidt | Garza | Daniels | Ferguson | Nichols | Stephens | Soto | Weaver | Ryan | Gardner | Payne | Grant | Dunn | Kelley |
Spencer | Hawkins | Arnold | Pierce | Vazquez | Hansen | Peters | Santos | Hart | Bradley | Knight | Elliott | Cunningham |
Duncan | Armstrong | Hudson | Carroll | Lane | Riley | Andrews | Alvarado | Ray | Delgado | Berry | Perkins | Hoffman |
Johnston | Matthews | Pena | Richards | Contreras | Willis | Carpenter | Lawrence | Sandoval | Guerrero | George | Chapman |
Rios | Estrada | Ortega | Watkins | Greene | Nunez | Wheeler | Valdez | Harper | Burke | Larson | Santiago | Maldonado |
Morrison | Franklin | Carlson | Austin | Dominguez | Carr | Lawson | Jacobs | Obrien | Lynch | Singh | Vega | Bishop |
Montgomery | Oliver | Jensen | Harvey | Williamson | Gilbert | Dean | Sims | Espinoza | Howell | Li | Wong | Reid | Hanson |
Le | McCoy | Garrett | Burton | Fuller | Wang | Weber | Welch | Rojas | Lucas | Marquez | Fields | Park | Yang | Little |
Banks | Padilla | Day | Walsh | Bowman | Schultz | Luna | Fowler | Mejia | Davidson | Acosta | Brewer | May | Holland | Juarez |
Newman | Pearson | Curtis | Cortez | Douglas | Schneider | Joseph | Barrett | Navarro | Figueroa | Keller | Avila | Wade |
Molina | Stanley | Hopkins | Campos | Barnett | Bates | Chambers | Caldwell | Beck | Lambert | Miranda | Byrd | Craig | Ayala |
Lowe | Frazier | Powers | Neal | Leonard | Gregory | Carrillo | Sutton | Fleming | Rhodes | Shelton | Schwartz | Norris |
Jennings | Watts | Duran | Walters | Cohen | McDaniel | Moran | Parks | Steele | Vaughn | Becker | Holt | Deleon | Barker |
Terry | Hale | Leon | Benson | Haynes | Horton | Miles | Lyons | Pham | Graves | Bush | Thornton | Wolfe | Warner |
Cabrera | McKinney | Mann | Zimmerman | Dawson | Lara | Fletcher | Page | McCarthy | Love | Robles | Cervantes | Solis |
Erickson | Reeves | Chang | Klein | Salinas | Fuentes | Baldwin | Daniel | Simon | Velasquez | Hardy | Higgins | Aguirre |
Lin | Cummings | Chandler | Sharp | Barber | Bowen | Ochoa | Dennis | Robbins | Liu | Ramsey | Francis | Griffith | Paul |
Blair | O'Connor | O'Brien | O'Neill | McAllister | MacLeod | D'Angelo | DeLuca | Van Buren | Vanderbilt | St. Clair |
Núñez | Peña | Muñoz | Ibáñez | Gómez | Hernández | Martínez | Pérez | Sánchez | Rodríguez | Jiménez | Ñañez | Yáñez |
Zúñiga | Álvarez | Méndez | Suárez | Díaz | Gutiérrez | Domínguez | Vásquez | Fernández | Müller | Schröder | Böhm | Köhler |
Weiß | Dvořák | Novák | Kowalski | Wiśniewski | Nowakowski | Łukasik | Søndergaard | Åberg | Lindqvist | Björklund | Nyström |
Nguyễn | Trần | Lê | Phạm | Đặng | Tanaka | Suzuki | Yamamoto | Watanabe | Nakamura | Sato | Choi | Kang | Cho | Yoon | Jang |
Shah | Gupta | Kumar | Sharma | Reddy | Iyer | Rao | Mehta | Desai | Chowdhury | Banerjee | Khan | Ali | Hussain | Rahman |
Haddad | Khoury | Nasser | Mansour | Okafor | Okonkwo | Adeyemi | Mensah | Boateng | Abebe | Haile | Kowalczyk | Petrov |
Ivanov | Popescu | Horvath | Nagy | Rossi | Russo | Ferrari | Esposito | Bianchi | Romano | Colombo | Ricci | Marino |
Greco | Bruno | Gallo | Conti | Costa | Giordano | Mancini | Lombardi | Moretti | Barbieri | Fontana | Santoro | Caruso |
Dubois | Lefebvre | Moreau | Laurent | Lefèvre | Girard | Bonnet | Dupont | Fontaine | Rousseau | Vincent |
Fitzgerald | Gallagher | Doyle | Quinn | Brennan | Byrne | Kavanagh | Donnelly | Flanagan | Reilly | Callahan | Doherty
`);

/**
 * The long tail of surnames. The list above holds the common ones; in the US they are a
 * minority (the thousand most common surnames cover about 40% of people), and the rest is a
 * tail of hundreds of thousands. The tail here is composed the way English place-name surnames
 * are (Ash + ford, Whit + combe, Thorn + ton): about 4,000 distinct names, each plausible.
 */
const SURNAME_STEMS = words(`
Ash | Ather | Bal | Bar | Bel | Black | Brad | Bram | Brook | Brom | Bur | Carl | Chad | Chat | Clay | Clif | Cole | Cran |
Dal | Dar | Dun | Eding | Elm | Ever | Fair | Farn | Fen | Gar | Gil | Glad | Gold | Graf | Hal | Hamp | Har | Hart | Hav |
Hay | Hol | Hux | Kel | Ken | Kirk | Lang | Lark | Lind | Lock | Lud | Mar | Mid | Mil | Mor | Nor | Oak | Pem | Pen | Pres |
Rad | Rand | Red | Rock | Rom | Roth | Rush | Sal | Shel | Somer | Stan | Stam | Stock | Thorn | Tren | Wal | War | Wes |
Whit | Win | Wood | Yar | Ab | Ald | Ames | Ark | Aus | Bick | Birk | Bos | Brent | Cad | Cal | Cob | Crom | Dray | Eg |
Faw | Fox | Gos | Ham | Hen | Ib | Kem | Kin | Knot | Lan | Lev | Mal | Mas | Moss | Nap | New | Ock | Pad | Pick | Pol |
Rip | Sel | Sher | Sid | Sten | Sut | Swin | Tad | Tal | Tem | Thur | Til | Up | Ver | Wad | Wel | Wick | Wil | Wor
`);
const SURNAME_ENDINGS = words(`
ford | ley | ton | well | wood | field | by | ham | worth | more | wick | combe | den | stead | bury | land | brook | dale |
ridge | shaw | ington | wright | stone | cott | thorpe | mere | burn | hurst | low | sworth
`);

/** A surname: one of the common ones, or (about half the time) one of the long tail. */
export function surname(rng: Rng): string {
  if (rng.chance(0.5)) return rng.pick(LAST_NAMES);
  const stem = rng.pick(SURNAME_STEMS);
  const ending = rng.pick(SURNAME_ENDINGS);
  // "Wood" + "wood" and the like: the ending repeats the stem's last letters.
  return stem.toLowerCase().endsWith(ending.slice(0, 2)) ? `${stem}${ending.slice(2)}` : stem + ending;
}

/** A last name; a few are hyphenated double names. */
export function lastName(rng: Rng): string {
  const a = surname(rng);
  if (!rng.chance(0.03)) return a;
  const b = surname(rng);
  return b === a ? a : `${a}-${b}`;
}
