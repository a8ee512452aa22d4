/** One line of an option's price: the lines of an option sum exactly to its fee. */
export interface BreakdownLine {
  kind: "BASE" | "SURCHARGE" | "EXTRA" | "MINIMUM";
  id?: string;
  code?: string;
  name: string;
  amount: string;
}
